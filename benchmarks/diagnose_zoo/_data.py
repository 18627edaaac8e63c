"""Synthetic data with learnable structure for the zoo setups (no downloads, deterministic in a generator).

Each generator returns data a healthy model learns quickly from its inputs: the labels or
targets follow the inputs through a fixed rule, so the checks' baselines (zeroed inputs,
shuffled targets) learn clearly less.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def clusters(gen: torch.Generator, classes: int, features: int, per_class: int, spread: float = 1.5):
    """Gaussian clusters, standardised features; labels in class order, int64."""
    centres = spread * torch.randn(classes, features, generator=gen)
    labels = torch.arange(classes).repeat_interleave(per_class)
    x = centres[labels] + torch.randn(labels.numel(), features, generator=gen)
    return standardise(x), labels


def standardise(x: torch.Tensor, dim: int = 0) -> torch.Tensor:
    return (x - x.mean(dim, keepdim=True)) / x.std(dim, keepdim=True).clamp(min=1e-8)


def templates(gen: torch.Generator, classes: int, channels: int, size: int, coarse: int = 4) -> torch.Tensor:
    """One smooth random pattern per class in [0, 1]: upsampled coarse noise, (classes, C, size, size)."""
    low = torch.rand(classes, channels, coarse, coarse, generator=gen)
    return F.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)


def template_images(gen: torch.Generator, classes: int, channels: int, size: int, per_class: int,
                    noise: float = 0.15, counts: list[int] | None = None):
    """Images in [0, 1] = class template + pixel noise (like ToTensor()); labels int64."""
    pattern = templates(gen, classes, channels, size)
    per = counts if counts is not None else [per_class] * classes
    labels = torch.cat([torch.full((n,), c, dtype=torch.long) for c, n in enumerate(per)])
    images = pattern[labels] + noise * torch.randn(labels.numel(), channels, size, size, generator=gen)
    return images.clamp(0.0, 1.0), labels


def normalise_images(images: torch.Tensor) -> torch.Tensor:
    """Per-channel standardisation with the batch's statistics, as torchvision's Normalize(mean, std)."""
    mean = images.mean(dim=(0, 2, 3), keepdim=True)
    std = images.std(dim=(0, 2, 3), keepdim=True).clamp(min=1e-8)
    return (images - mean) / std


def successor_sequences(gen: torch.Generator, vocab: int, length: int, count: int, noise: float = 0.03,
                        low: int = 0) -> torch.Tensor:
    """`count` token sequences of `length` ids in [low, vocab) that mostly follow one successor table."""
    span = vocab - low
    successor = torch.randperm(span, generator=gen) + low
    seq = torch.empty(count, length, dtype=torch.long)
    seq[:, 0] = torch.randint(low, vocab, (count,), generator=gen)
    for t in range(1, length):
        random_token = torch.randint(low, vocab, (count,), generator=gen)
        breaks_rule = torch.rand(count, generator=gen) < noise
        seq[:, t] = torch.where(breaks_rule, random_token, successor[seq[:, t - 1] - low])
    return seq


def blob_scenes(gen: torch.Generator, count: int, classes: int, size: int, blobs: int = 3):
    """Segmentation scenes: background class 0 and `blobs` filled squares of classes 1..classes-1.

    Each class has its own colour, so a pixel's class is readable from its neighbourhood. Returns
    images (count, 3, size, size) in [0, 1] and masks (count, size, size) int64.
    """
    colours = torch.rand(classes, 3, generator=gen)
    masks = torch.zeros(count, size, size, dtype=torch.long)
    for i in range(count):
        for _ in range(blobs):
            c = int(torch.randint(1, classes, (1,), generator=gen))
            side = int(torch.randint(size // 4, size // 2 + 1, (1,), generator=gen))
            top, left = (int(v) for v in torch.randint(0, size - side + 1, (2,), generator=gen))
            masks[i, top:top + side, left:left + side] = c
    images = colours[masks].permute(0, 3, 1, 2) + 0.1 * torch.randn(count, 3, size, size, generator=gen)
    return images.clamp(0.0, 1.0), masks
