"""Synthetic churn-style tabular data.

Features come from a fixed random "teacher" network so the decision boundary
is non-linear; a small fraction of labels is flipped to mimic CRM noise.
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, TensorDataset

from config import DataConfig


def _teacher(n_features: int, n_classes: int, gen: torch.Generator):
    w1 = torch.randn(n_features, 64, generator=gen) / n_features ** 0.5
    w2 = torch.randn(64, n_classes, generator=gen) / 8.0
    return lambda x: torch.tanh(x @ w1 * 2.0) @ w2


def make_splits(cfg: DataConfig):
    gen = torch.Generator().manual_seed(cfg.seed)
    teacher = _teacher(cfg.n_features, cfg.n_classes, gen)
    n = cfg.n_train + cfg.n_val
    x = torch.randn(n, cfg.n_features, generator=gen)
    y = teacher(x).argmax(dim=1)
    flip = torch.rand(n, generator=gen) < cfg.label_noise
    y[flip] = torch.randint(0, cfg.n_classes, (int(flip.sum()),), generator=gen)
    mean, std = x[: cfg.n_train].mean(0), x[: cfg.n_train].std(0)
    x = (x - mean) / std
    train = TensorDataset(x[: cfg.n_train], y[: cfg.n_train])
    val = TensorDataset(x[cfg.n_train:], y[cfg.n_train:])
    return train, val


def make_loaders(cfg: DataConfig, batch_size: int, seed: int):
    train, val = make_splits(cfg)
    gen = torch.Generator().manual_seed(seed)
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True, generator=gen)
    val_loader = DataLoader(val, batch_size=1024)
    return train_loader, val_loader
