"""Small CNN with BatchNorm and dropout, classifying synthetic 1x12x12 images (6 classes).

Each class has a fixed smooth template; an image is its class template plus pixel noise,
stored as 0-255 intensities like a real image file and normalised with fixed dataset
statistics, as torchvision's Normalize would. `debug_spec(seed)` returns the diagnose
contract dict, with a held-out `val_batch`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 6
IMAGE_SIZE = 12
TRAIN_PER_CLASS = 16  # a 96-image batch
VAL_PER_CLASS = 6
PIXEL_MEAN = 128.0  # dataset statistics of the 0-255 intensities
PIXEL_STD = 66.0
LEARNING_RATE = 3e-3


class SmallCNN(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        # Strided convolutions downsample (12 -> 6 -> 3); cheaper on CPU than max-pooling.
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.act1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.act2 = nn.ReLU()
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(16 * 3 * 3, num_classes)
        # A small head: near-zero logits at init, so the initial loss is about ln(num_classes).
        nn.init.normal_(self.head.weight, std=0.05)
        nn.init.zeros_(self.head.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.act1(self.bn1(self.conv1(x)))  # (B, 8, 6, 6)
        x = self.act2(self.bn2(self.conv2(x)))  # (B, 16, 3, 3)
        x = F.dropout(x, p=0.05, training=self.training)  # light feature-map dropout
        x = x.view(x.size(0), -1)  # flatten per sample: (B, 144)
        return self.head(self.dropout(x))


def make_templates(gen: torch.Generator) -> torch.Tensor:
    """One smooth random pattern per class, in [0, 1]: upsampled 4x4 noise."""
    coarse = torch.rand(NUM_CLASSES, 1, 4, 4, generator=gen)
    return F.interpolate(coarse, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)


def sample_pixels(templates: torch.Tensor, per_class: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Template plus noise, as 0-255 intensities (float, like ToTensor()*255)."""
    labels = torch.arange(NUM_CLASSES).repeat_interleave(per_class)
    noise = 0.15 * torch.randn(labels.numel(), 1, IMAGE_SIZE, IMAGE_SIZE, generator=gen)
    pixels = (255.0 * (templates[labels] + noise)).clamp(0.0, 255.0)
    return pixels, labels


def normalise(pixels: torch.Tensor) -> torch.Tensor:
    return (pixels - PIXEL_MEAN) / PIXEL_STD


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=LEARNING_RATE)


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, targets)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    images, labels = batch
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    templates = make_templates(gen)
    train_pixels, train_labels = sample_pixels(templates, TRAIN_PER_CLASS, gen)
    val_pixels, val_labels = sample_pixels(templates, VAL_PER_CLASS, gen)
    train_images = normalise(train_pixels)
    val_images = normalise(val_pixels)
    model = SmallCNN(NUM_CLASSES)
    return {
        "model": model,
        "batch": (train_images, train_labels),
        "val_batch": (val_images, val_labels),
        "loss_fn": loss_fn,
        "optimizer": make_optimizer,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
