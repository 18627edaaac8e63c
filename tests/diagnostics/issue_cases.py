"""The setups of issue 18, rebuilt: healthy but slow at Adam's default rate, and PyTorch's own (B, V, T) layout.

Each returns a dict debug spec with the default optimizer (Adam, lr 3e-4): the rate the issue measured.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn


def tanh_bce(seed: int = 0, n: int = 64, **overrides):
    """A 2-32-1 tanh net with BCEWithLogitsLoss on a ring: inside or outside a circle."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 2, generator=g)
    y = (x.pow(2).sum(1, keepdim=True) > math.log(4)).float()  # median radius of a 2-D Gaussian: balanced
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))
    spec = dict(model=model, batch=(x, y), loss_fn=nn.BCEWithLogitsLoss(), task="binary")
    spec.update(overrides)
    return spec


class ConvGRU(nn.Module):
    """Conv1d features over (B, C, T), a GRU over time, the last state to the class scores."""

    def __init__(self, channels: int = 4, classes: int = 3, hidden: int = 32) -> None:
        super().__init__()
        self.conv = nn.Conv1d(channels, 16, kernel_size=5, padding=2)
        self.gru = nn.GRU(16, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        h = torch.relu(self.conv(x)).transpose(1, 2)  # (B, T, 16)
        _, last = self.gru(h)
        return self.head(last[-1])


def conv_gru(seed: int = 0, n: int = 48, length: int = 40, **overrides):
    """Three classes of noisy sinusoids that differ in frequency, over four channels."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % 3
    t = torch.arange(length).float()
    phase = torch.rand(n, 4, 1, generator=g) * 6.28
    x = torch.sin(phase + t * (0.2 + 0.3 * y.float()).view(n, 1, 1)) + 0.3 * torch.randn(n, 4, length, generator=g)
    spec = dict(model=ConvGRU(), batch=(x, y), loss_fn=nn.CrossEntropyLoss(), task="classification", num_classes=3)
    spec.update(overrides)
    return spec


class GruLM(nn.Module):
    """Embedding, a unidirectional GRU, a head; logits returned (B, V, T), as CrossEntropyLoss takes them."""

    def __init__(self, vocab: int = 50, dim: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.gru = nn.GRU(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        h, _ = self.gru(self.emb(tokens))
        return self.head(h).transpose(1, 2)  # (B, T, V) -> (B, V, T)


def gru_lm(shift: bool = True, seed: int = 0, vocab: int = 50, length: int = 12, **overrides):
    """Sequences following a fixed successor table; targets the next tokens (or, the bug, the inputs)."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    successor = torch.randperm(vocab, generator=g)
    seq = torch.empty(16, length + 1, dtype=torch.long)
    seq[:, 0] = torch.randint(0, vocab, (16,), generator=g)
    for i in range(length):
        seq[:, i + 1] = successor[seq[:, i]]
    inputs = seq[:, :-1]
    targets = seq[:, 1:] if shift else inputs.clone()
    spec = dict(model=GruLM(vocab), batch=(inputs, targets), loss_fn=nn.CrossEntropyLoss(), task="lm",
                vocab_size=vocab, seq_dim=1)
    spec.update(overrides)
    return spec
