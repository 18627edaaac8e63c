"""A 2-32-1 tanh MLP with BCEWithLogitsLoss on two interleaved half-moons, Adam 3e-4 (issue 18's case; the scikit-learn make_moons exercise)."""

from __future__ import annotations

import math

import torch
from torch import nn

COUNT = 64


def make_moons(gen: torch.Generator, n: int, noise: float = 0.1):
    half = n // 2
    theta = math.pi * torch.rand(n, generator=gen)
    outer = torch.stack([theta[:half].cos(), theta[:half].sin()], dim=1)
    inner = torch.stack([1 - theta[half:].cos(), 0.5 - theta[half:].sin()], dim=1)
    x = torch.cat([outer, inner]) + noise * torch.randn(n, 2, generator=gen)
    y = torch.cat([torch.zeros(half), torch.ones(n - half)]).unsqueeze(1)
    return (x - x.mean(0)) / x.std(0), y


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3e-4)


criterion = nn.BCEWithLogitsLoss()


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    x, y = batch
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x, y = make_moons(gen, COUNT)
    spec = {
        "model": nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1)),
        "batch": (x, y),
        "loss_fn": criterion,
        "task": "binary",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
