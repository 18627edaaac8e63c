"""Synthetic IMU gesture features: a fixed random teacher labels Gaussian windows.

Raw channels come from different sensors (accelerometer, gyroscope, magnetometer) and
have very different offsets and scales; the model normalises them with BatchNorm.
"""
from __future__ import annotations

from typing import Tuple

import torch
from torch.utils.data import DataLoader, TensorDataset

from config import Config

TEACHER_SEED = 1234


def _teacher(num_features: int, num_classes: int) -> Tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(TEACHER_SEED)
    w1 = torch.randn(num_features, 16, generator=g) / num_features ** 0.5
    w2 = torch.randn(16, num_classes, generator=g) / 4.0
    offset = torch.randn(num_features, generator=g) * 4.0
    scale = torch.exp(torch.randn(num_features, generator=g) * 1.2)
    return w1, w2, offset, scale


def make_split(cfg: Config, n: int, seed: int) -> TensorDataset:
    d = cfg.data
    w1, w2, offset, scale = _teacher(d.num_features, d.num_classes)
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n, d.num_features, generator=g)
    logits = torch.tanh(z @ w1) @ w2 * 6.0
    y = logits.argmax(dim=1)
    flip = torch.rand(n, generator=g) < d.label_noise
    y[flip] = torch.randint(0, d.num_classes, (int(flip.sum()),), generator=g)
    x = z * scale + offset          # what the sensors report
    return TensorDataset(x, y)


def build_loaders(cfg: Config) -> Tuple[DataLoader, DataLoader]:
    train = make_split(cfg, cfg.data.train_size, seed=cfg.seed * 100 + 1)
    val = make_split(cfg, cfg.data.val_size, seed=cfg.seed * 100 + 2)
    g = torch.Generator().manual_seed(cfg.seed)
    # the loader yields micro-batches; the trainer groups accum_steps of them per step
    train_loader = DataLoader(train, batch_size=cfg.micro_batch_size, shuffle=True,
                              drop_last=True, generator=g)
    val_loader = DataLoader(val, batch_size=500, shuffle=False)
    return train_loader, val_loader
