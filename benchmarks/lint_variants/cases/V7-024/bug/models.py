import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoModel


class MLPPooler(nn.Module):
    def __init__(self, hidden_size: int):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.activation = nn.Tanh()

    def forward(self, cls_hidden: torch.Tensor) -> torch.Tensor:
        return self.activation(self.dense(cls_hidden))


class SimCSE(nn.Module):
    """Unsupervised SimCSE: two dropout views of the same sentence are positives, in-batch negatives."""

    def __init__(self, model_name: str, temperature: float = 0.05, pooler: str = "cls"):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(model_name)
        self.pooler_type = pooler
        self.mlp = MLPPooler(self.encoder.config.hidden_size)
        self.temperature = temperature

    def pool(self, last_hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        if self.pooler_type == "avg":
            mask = attention_mask.unsqueeze(-1).float()
            return (last_hidden * mask).sum(1) / mask.sum(1).clamp_min(1e-9)
        return last_hidden[:, 0]

    def encode(self, input_ids, attention_mask, use_mlp: bool = False) -> torch.Tensor:
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
        emb = self.pool(out.last_hidden_state, attention_mask)
        return self.mlp(emb) if use_mlp else emb

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        bs = input_ids.size(0)
        ids = torch.cat([input_ids, input_ids], dim=0)
        mask = torch.cat([attention_mask, attention_mask], dim=0)
        z = self.encode(ids, mask, use_mlp=self.pooler_type == "cls")
        z1, z2 = z[:bs], z[bs:]
        sim = F.cosine_similarity(z1.unsqueeze(1), z2.unsqueeze(0), dim=-1) / self.temperature
        labels = torch.arange(bs, device=sim.device)
        return F.cross_entropy(sim, labels)


@torch.no_grad()
def sts_spearman(model: SimCSE, tokenizer, pairs, scores, device, batch_size: int = 128) -> float:
    from scipy.stats import spearmanr

    model.eval()
    sims = []
    for i in range(0, len(pairs), batch_size):
        chunk = pairs[i:i + batch_size]
        a = tokenizer([p[0] for p in chunk], padding=True, truncation=True, max_length=64, return_tensors="pt")
        b = tokenizer([p[1] for p in chunk], padding=True, truncation=True, max_length=64, return_tensors="pt")
        ea = model.encode(a["input_ids"].to(device), a["attention_mask"].to(device))
        eb = model.encode(b["input_ids"].to(device), b["attention_mask"].to(device))
        sims.extend(F.cosine_similarity(ea, eb).cpu().tolist())
    return float(spearmanr(sims, scores).correlation)
