"""LeCun et al. 1998 LeNet-5 (5x5 convolutions, tanh, average pooling, 120-84 tanh head) on 1x16x16 digits-like images, SGD 0.05 with momentum 0.9."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import normalise_images, template_images

NUM_CLASSES = 10
IMAGE_SIZE = 16
PER_CLASS = 5


class LeNet5(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Tanh(), nn.AvgPool2d(2),  # 16 -> 8
            nn.Conv2d(6, 16, kernel_size=5), nn.Tanh(), nn.AvgPool2d(2),  # 8 -> 4 -> 2
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 2 * 2, 120), nn.Tanh(), nn.Linear(120, 84), nn.Tanh(), nn.Linear(84, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.05, momentum=0.9)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    images, labels = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = template_images(gen, NUM_CLASSES, 1, IMAGE_SIZE, PER_CLASS)
    spec = {
        "model": LeNet5(NUM_CLASSES),
        "batch": (normalise_images(images), labels),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
