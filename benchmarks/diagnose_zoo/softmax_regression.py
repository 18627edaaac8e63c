"""Multinomial logistic regression as in d2l.ai's softmax-regression chapter (one nn.Linear on flattened inputs, weights N(0, 0.01), cross-entropy), minibatch SGD at lr 0.1."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import clusters

NUM_CLASSES = 5
FEATURES = 20
PER_CLASS = 12


def init_weights(m: nn.Module) -> None:
    if type(m) is nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.1)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    X, y = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    X, y = clusters(gen, NUM_CLASSES, FEATURES, PER_CLASS, spread=1.0)
    net = nn.Sequential(nn.Flatten(), nn.Linear(FEATURES, NUM_CLASSES))
    net.apply(init_weights)
    spec = {
        "model": net,
        "batch": (X, y),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
