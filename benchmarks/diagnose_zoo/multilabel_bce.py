"""A multi-label MLP of the Kaggle MoA kind (BatchNorm1d-Dropout-Linear-ReLU blocks, one logit per label, BCEWithLogitsLoss against multi-hot float targets), Adam 1e-3 with weight decay 1e-5."""

from __future__ import annotations

import torch
from torch import nn

from ._data import standardise

FEATURES = 24
LABELS = 6
COUNT = 64


class MultiLabelMLP(nn.Module):
    def __init__(self, features: int, labels: int, hidden: int = 64):
        super().__init__()
        self.model = nn.Sequential(
            nn.BatchNorm1d(features), nn.Dropout(0.2), nn.Linear(features, hidden), nn.ReLU(),
            nn.BatchNorm1d(hidden), nn.Dropout(0.2), nn.Linear(hidden, hidden), nn.ReLU(),
            nn.BatchNorm1d(hidden), nn.Dropout(0.2), nn.Linear(hidden, labels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)


def make_data(gen: torch.Generator):
    """Each label fires when its own random direction in feature space scores high (about a quarter of rows)."""
    x = torch.randn(COUNT, FEATURES, generator=gen)
    directions = torch.randn(FEATURES, LABELS, generator=gen)
    scores = x @ directions / FEATURES ** 0.5
    return standardise(x), (scores > 0.67).float()


criterion = nn.BCEWithLogitsLoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3, weight_decay=1e-5)


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
        "model": MultiLabelMLP(FEATURES, LABELS),
        "batch": (x, y),
        "loss_fn": criterion,
        "task": "binary",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
