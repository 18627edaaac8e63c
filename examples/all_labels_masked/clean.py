"""Fine-tune a tiny transformer to answer a prompt with its last four tokens reversed.

Only answer tokens carry labels (prompt tokens are -100); long prompts lose their start.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB = 16
SEP = 1  # separates prompt from answer; 0 is unused, prompt tokens are 2..15
PROMPT_LEN, ANSWER_LEN = 16, 4
MAX_LEN = 16  # the model's context length


def truncate(t):
    return t[:, -MAX_LEN:]  # FIX: keep the end, where the answer and its labels are


def make_data(n, seed):
    """Prompt, SEP, answer; each label is the next answer token, all other labels are -100."""
    g = torch.Generator().manual_seed(seed)
    prompt = torch.randint(2, VOCAB, (n, PROMPT_LEN), generator=g)
    answer = prompt[:, -ANSWER_LEN:].flip(1)
    tokens = torch.cat([prompt, torch.full((n, 1), SEP), answer], dim=1)
    labels = torch.full_like(tokens, -100)
    labels[:, PROMPT_LEN:-1] = answer  # SEP predicts answer[0], answer[0] predicts answer[1], ...
    return truncate(tokens), truncate(labels)


class TinyLM(nn.Module):
    def __init__(self, d_model=64, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Embedding(MAX_LEN, d_model)
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, VOCAB)

    def attention(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos(torch.arange(tokens.shape[1]))
        x = x + self.attention(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return self.lm_head(self.ln_f(x))


def lm_loss(logits, labels):
    return F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100)


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": TinyLM(),
        "batch": make_data(64, seed=1),
        "val_batch": make_data(16, seed=2),
        "loss_fn": lm_loss,
        "optimizer": lambda params: torch.optim.Adam(params, lr=3e-3),
        "task": "lm",
        "vocab_size": VOCAB,
        "seq_dim": 1,
    }


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    val_tokens, val_labels = make_data(256, seed=2)
    model = TinyLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(4):
        model.train()
        total = 0.0
        for tokens, labels in loader:
            optimizer.zero_grad()
            loss = lm_loss(model(tokens), labels)
            loss.backward()
            optimizer.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            predicted = model(val_tokens).argmax(dim=-1)
        answered = val_labels != -100
        accuracy = (predicted[answered] == val_labels[answered]).float().mean().item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}  answer-token acc {accuracy:.3f}")


if __name__ == "__main__":
    main()
