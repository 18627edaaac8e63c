import torch
import torch.nn as nn


class DKT(nn.Module):
    """Deep Knowledge Tracing (Piech et al. 2015) with skill/response interaction embeddings."""

    def __init__(self, num_skills: int, emb_dim: int = 100, hidden_dim: int = 100, num_layers: int = 1,
                 dropout: float = 0.2, cell: str = "lstm"):
        super().__init__()
        self.num_skills = num_skills
        self.interaction_emb = nn.Embedding(2 * num_skills + 1, emb_dim, padding_idx=0)
        rnn_cls = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn_cls(emb_dim, hidden_dim, num_layers=num_layers, batch_first=True,
                           dropout=dropout if num_layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_dim, num_skills)

    def forward(self, skills: torch.Tensor, responses: torch.Tensor) -> torch.Tensor:
        interactions = skills + self.num_skills * responses
        interactions = interactions.masked_fill(skills == 0, 0)
        h, _ = self.rnn(self.interaction_emb(interactions))
        return self.out(self.dropout(h))

    @staticmethod
    def gather_next(logits: torch.Tensor, next_skills: torch.Tensor) -> torch.Tensor:
        idx = (next_skills - 1).clamp(min=0).unsqueeze(-1)
        return logits.gather(-1, idx).squeeze(-1)


class SAKTLite(nn.Module):
    def __init__(self, num_skills: int, d_model: int = 64, n_heads: int = 4, max_len: int = 200,
                 dropout: float = 0.2):
        super().__init__()
        self.num_skills = num_skills
        self.interaction_emb = nn.Embedding(2 * num_skills + 1, d_model, padding_idx=0)
        self.query_emb = nn.Embedding(num_skills + 1, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.ffn = nn.Sequential(nn.Linear(d_model, d_model), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(d_model, d_model))
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, 1)

    def forward(self, skills, responses, next_skills):
        T = skills.size(1)
        pos = torch.arange(T, device=skills.device)
        kv = self.interaction_emb(skills + self.num_skills * responses) + self.pos(pos)
        q = self.query_emb(next_skills)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=skills.device), diagonal=1)
        a, _ = self.attn(q, kv, kv, attn_mask=mask)
        x = self.norm1(a + q)
        x = self.norm2(x + self.ffn(x))
        return self.out(x).squeeze(-1)
