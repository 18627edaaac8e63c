"""Small, fast debug specs for the check tests: one healthy setup per task, with knobs to break it."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


def clusters(n: int = 64, features: int = 12, classes: int = 4, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, features, generator=g) * 2
    y = torch.arange(n) % classes
    x = centers[y] + torch.randn(n, features, generator=g)
    return x, y


def classifier(head: nn.Module | None = None, seed: int = 0, **overrides):
    torch.manual_seed(seed)
    x, y = clusters(seed=seed)
    layers = [nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4)] + ([head] if head is not None else [])
    spec = dict(model=nn.Sequential(*layers), batch=(x, y), loss_fn=F.cross_entropy, task="classification",
                num_classes=4, optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    spec.update(overrides)
    return spec


class TinyLM(nn.Module):
    """One causal self-attention block; `causal=False` drops the mask."""

    def __init__(self, vocab: int = 16, dim: int = 32, length: int = 12, causal: bool = True) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(length, dim)
        self.qkv, self.out, self.head = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim), nn.Linear(dim, vocab)
        self.causal = causal

    def forward(self, tokens):
        t = tokens.shape[1]
        h = self.tok(tokens) + self.pos(torch.arange(t, device=tokens.device))
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / q.shape[-1] ** 0.5
        if self.causal:
            future = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tokens.device), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        h = h + self.out(scores.softmax(-1) @ v)
        return self.head(h)


def lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100)


def lm(causal: bool = True, shift: bool = True, seed: int = 0, **overrides):
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    start = torch.randint(0, 16, (16, 1), generator=g)
    seq = (start + torch.arange(13)) % 16  # successor rule: next token = current + 1
    inputs = seq[:, :-1]
    targets = seq[:, 1:] if shift else inputs.clone()
    spec = dict(model=TinyLM(causal=causal), batch=(inputs, targets), loss_fn=lm_loss, task="lm", vocab_size=16,
                seq_dim=1, optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    spec.update(overrides)
    return spec


def regression(seed: int = 0, **overrides):
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(64, 6, generator=g)
    y = (x[:, :1] * 0.8 - x[:, 1:2] * 0.5).tanh() * 1.5
    y = (y - y.mean()) / y.std()
    model = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 1))
    spec = dict(model=model, batch=(x, y), loss_fn=F.mse_loss, task="regression",
                optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    spec.update(overrides)
    return spec


def standardise_train_only(train, test):
    mean, std = train.mean(0), train.std(0)
    return (train - mean) / std, (test - mean) / std


def standardise_everything(train, test):
    both = torch.cat([train, test])
    mean, std = both.mean(0), both.std(0)
    return (train - mean) / std, (test - mean) / std
