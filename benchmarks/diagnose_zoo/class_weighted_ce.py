"""An imbalanced tabular classifier with inverse-frequency class weights in CrossEntropyLoss (scikit-learn's "balanced" weights, n / (k * count)), a ReLU MLP with Dropout, Adam 1e-3."""

from __future__ import annotations

import torch
from torch import nn

from ._data import clusters

NUM_CLASSES = 3
FEATURES = 10
COUNTS = (60, 24, 12)  # 5:1 imbalance


def make_data(gen: torch.Generator):
    x, y = clusters(gen, NUM_CLASSES, FEATURES, max(COUNTS), spread=1.0)
    keep = torch.cat([torch.nonzero(y == c).flatten()[:n] for c, n in enumerate(COUNTS)])
    return x[keep], y[keep]


def balanced_weights(y: torch.Tensor) -> torch.Tensor:
    counts = torch.bincount(y, minlength=NUM_CLASSES).float()
    return y.numel() / (NUM_CLASSES * counts)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x, y = make_data(gen)
    criterion = nn.CrossEntropyLoss(weight=balanced_weights(y))
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 64), nn.ReLU(),
                          nn.Dropout(0.1), nn.Linear(64, NUM_CLASSES))

    def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
        inputs, targets = batch
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    spec = {
        "model": model,
        "batch": (x, y),
        "loss_fn": criterion,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
