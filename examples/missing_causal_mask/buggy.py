"""Train a one-block transformer language model on counting sequences (start + k*i mod 16).

Symptom: the training loss falls almost to zero within a few epochs, yet a prompt
continued one token at a time soon drifts off the counting pattern.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB = 16
SEQ_LEN = 16


def make_data(n, seed):
    """Token sequences (start + step * i) % VOCAB with step in {1, 2, 3}; targets are the
    inputs shifted left by one, with -100 (ignored) at the last position."""
    g = torch.Generator().manual_seed(seed)
    start = torch.randint(0, VOCAB, (n, 1), generator=g)
    step = torch.randint(1, 4, (n, 1), generator=g)
    tokens = (start + step * torch.arange(SEQ_LEN)) % VOCAB
    targets = torch.full_like(tokens, -100)
    targets[:, :-1] = tokens[:, 1:]
    return tokens, targets


class TinyLM(nn.Module):
    def __init__(self, d_model=64, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Embedding(SEQ_LEN, d_model)
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
        y = F.scaled_dot_product_attention(q, k, v)  # BUG: every position also attends to later tokens
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos(torch.arange(tokens.shape[1]))
        x = x + self.attention(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return self.lm_head(self.ln_f(x))


def lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-100)


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": TinyLM(),
        "batch": make_data(16, seed=1),
        "val_batch": make_data(16, seed=2),
        "loss_fn": lm_loss,
        "optimizer": lambda params: torch.optim.Adam(params, lr=3e-3),
        "task": "lm",
        "vocab_size": VOCAB,
        "seq_dim": 1,
        "causal": True,
    }


@torch.no_grad()
def continue_prompt(model, prompt, n_new):
    model.eval()
    tokens = torch.tensor([prompt])
    for _ in range(n_new):
        next_token = model(tokens)[0, -1].argmax()
        tokens = torch.cat([tokens, next_token.view(1, 1)], dim=1)
    model.train()
    return tokens[0].tolist()


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    model = TinyLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(4):
        total = 0.0
        for tokens, targets in loader:
            optimizer.zero_grad()
            loss = lm_loss(model(tokens), targets)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}")
    print("prompt [0, 3, 6] ->", continue_prompt(model, [0, 3, 6], 8))


if __name__ == "__main__":
    main()
