"""Wang, Yan and Oates 2017's fully convolutional network for time-series classification (Conv1d 8/5/3 with BatchNorm and ReLU, global average pooling, linear head), Adam 1e-3 as in the paper."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 3
LENGTH = 48
PER_CLASS = 10


class FCN(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, filters=(16, 32, 16)):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv1d(in_channels, filters[0], 8, padding="same"), nn.BatchNorm1d(filters[0]), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv1d(filters[0], filters[1], 5, padding="same"), nn.BatchNorm1d(filters[1]), nn.ReLU())
        self.block3 = nn.Sequential(nn.Conv1d(filters[1], filters[2], 3, padding="same"), nn.BatchNorm1d(filters[2]), nn.ReLU())
        self.fc = nn.Linear(filters[2], num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, C, T)
        x = self.block3(self.block2(self.block1(x)))
        return self.fc(x.mean(dim=-1))  # global average pooling over time


def make_series(gen: torch.Generator):
    """Class 0: a bump, class 1: a step, class 2: a dip, at a random place, on a noisy random walk."""
    labels = torch.arange(NUM_CLASSES).repeat_interleave(PER_CLASS)
    t = torch.arange(LENGTH).float()
    where = torch.randint(8, LENGTH - 8, (labels.numel(), 1), generator=gen).float()
    bump = torch.exp(-((t - where) ** 2) / 8)
    step = (t > where).float()
    shapes = torch.stack([bump, step, -bump], 1)[torch.arange(labels.numel()), labels]
    walk = 0.1 * torch.randn(labels.numel(), LENGTH, generator=gen).cumsum(1)
    x = 2 * shapes + walk + 0.2 * torch.randn(labels.numel(), LENGTH, generator=gen)
    x = (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True)  # z-normalise each series, as the UCR archive does
    return x.unsqueeze(1), labels


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


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
    x, y = make_series(gen)
    spec = {
        "model": FCN(1, NUM_CLASSES),
        "batch": (x, y),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
