"""A several-target regression MLP (standardised features and targets, (B, 3) outputs, MSELoss) of the California-housing tutorial kind, SGD 0.01 with Nesterov momentum 0.9."""

from __future__ import annotations

import torch
from torch import nn

from ._data import standardise

FEATURES = 8
TARGETS = 3
COUNT = 128


def make_data(gen: torch.Generator):
    """Three smooth nonlinear functions of the features, plus a little noise."""
    x = torch.randn(COUNT, FEATURES, generator=gen)
    w = torch.randn(FEATURES, TARGETS, generator=gen) / FEATURES ** 0.5
    v = torch.randn(FEATURES, TARGETS, generator=gen) / FEATURES ** 0.5
    y = torch.tanh(x @ w) * 2 + torch.sin(x @ v) + 0.05 * torch.randn(COUNT, TARGETS, generator=gen)
    return standardise(x), standardise(y)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, TARGETS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


criterion = nn.MSELoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.01, momentum=0.9, nesterov=True)


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
    x, y = make_data(gen)
    spec = {
        "model": Regressor(),
        "batch": (x, y),
        "loss_fn": criterion,
        "task": "regression",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
