"""MLP classifier on standardised Gaussian-cluster data (8 classes, 16 features).

A clean, healthy setup: `debug_spec(seed)` returns the diagnose contract dict.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 8
NUM_FEATURES = 16
SAMPLES_PER_CLASS = 16  # 128 samples: enough per class that the clusters, not the rows, get learned
HIDDEN = 64
LEARNING_RATE = 3e-3


class MLPClassifier(nn.Module):
    def __init__(self, in_features: int, hidden: int, num_classes: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.act1 = nn.ReLU()
        self.fc2 = nn.Linear(hidden, hidden)
        self.act2 = nn.ReLU()
        self.head = nn.Linear(hidden, num_classes)
        # He init for the ReLU layers, zero biases; a small head so the initial logits are
        # near zero and the loss at init is close to ln(num_classes).
        nn.init.kaiming_normal_(self.fc1.weight, nonlinearity="relu")
        nn.init.zeros_(self.fc1.bias)
        nn.init.kaiming_normal_(self.fc2.weight, nonlinearity="relu")
        nn.init.zeros_(self.fc2.bias)
        nn.init.normal_(self.head.weight, std=0.05)
        nn.init.zeros_(self.head.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.act1(self.fc1(x))
        h = self.act2(self.fc2(h))
        return self.head(h)


def make_data(gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Gaussian clusters: one random centre per class, unit-variance noise around it."""
    centres = 1.5 * torch.randn(NUM_CLASSES, NUM_FEATURES, generator=gen)
    labels = torch.arange(NUM_CLASSES).repeat_interleave(SAMPLES_PER_CLASS)
    features = centres[labels] + torch.randn(labels.numel(), NUM_FEATURES, generator=gen)
    # Standardise each feature (mean 0, std 1) so no input dimension dominates.
    inputs = (features - features.mean(0)) / features.std(0).clamp(min=1e-8)
    return inputs, labels


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=LEARNING_RATE)


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, targets)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    inputs, targets = batch
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    inputs, targets = make_data(gen)
    model = MLPClassifier(NUM_FEATURES, HIDDEN, NUM_CLASSES)
    return {
        "model": model,
        "batch": (inputs, targets),
        "loss_fn": loss_fn,
        "optimizer": make_optimizer,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
