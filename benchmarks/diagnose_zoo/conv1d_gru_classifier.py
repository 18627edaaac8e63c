"""A Conv1d feature extractor feeding a GRU whose last hidden state is classified, the CNN-RNN pattern of sensor and audio classifiers (issue 18's case), Adam 3e-4."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 4
CHANNELS = 3
LENGTH = 32
PER_CLASS = 8


class ConvGRUClassifier(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, conv: int = 16, hidden: int = 32):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(in_channels, conv, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool1d(2))
        self.gru = nn.GRU(conv, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (B, C, T)
        h = self.conv(x).transpose(1, 2)  # (B, T/2, conv) for a batch-first GRU
        _, last = self.gru(h)  # (1, B, hidden)
        return self.fc(last[-1])


def make_signals(gen: torch.Generator):
    """Per class a frequency and phase pattern across channels, random phase shift and noise per sample."""
    t = torch.linspace(0, 1, LENGTH)
    labels = torch.arange(NUM_CLASSES).repeat_interleave(PER_CLASS)
    freqs = 2.0 + 3.0 * torch.arange(NUM_CLASSES).float()
    phase = 2 * torch.pi * torch.rand(labels.numel(), 1, 1, generator=gen)
    offsets = torch.arange(CHANNELS).float().view(1, CHANNELS, 1)
    x = torch.sin(2 * torch.pi * freqs[labels].view(-1, 1, 1) * t + phase + offsets)
    return x + 0.3 * torch.randn(x.shape, generator=gen), labels


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3e-4)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    x, y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x, y = make_signals(gen)
    spec = {
        "model": ConvGRUClassifier(CHANNELS, NUM_CLASSES),
        "batch": (x, y),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
