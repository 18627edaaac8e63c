"""Synthetic IMU gesture windows.

Each gesture class has a template: per channel, a sum of two sinusoids with a
class-specific frequency, phase and amplitude.  A sample is the template with a
random time shift, a random gain and additive sensor noise.
"""
from __future__ import annotations

import math

import torch
from torch.utils.data import DataLoader, Dataset


class GestureWindows(Dataset):
    def __init__(self, signals: torch.Tensor, labels: torch.Tensor):
        self.signals = signals
        self.labels = labels

    def __len__(self) -> int:
        return self.labels.numel()

    def __getitem__(self, idx):
        return self.signals[idx], self.labels[idx]


def _templates(n_classes: int, n_channels: int, window: int, gen: torch.Generator) -> torch.Tensor:
    t = torch.linspace(0, 1, window)
    freq = 1.0 + 4.0 * torch.rand(n_classes, n_channels, 2, generator=gen)
    phase = 2 * math.pi * torch.rand(n_classes, n_channels, 2, generator=gen)
    amp = 0.5 + torch.rand(n_classes, n_channels, 2, generator=gen)
    waves = amp[..., None] * torch.sin(2 * math.pi * freq[..., None] * t + phase[..., None])
    return waves.sum(dim=2)  # (classes, channels, window)


def _sample(templates, per_class, noise_std, gen):
    n_classes, n_channels, window = templates.shape
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    shifts = torch.randint(-6, 7, (labels.numel(),), generator=gen)
    gains = 0.8 + 0.4 * torch.rand(labels.numel(), 1, 1, generator=gen)
    x = torch.stack([torch.roll(templates[c], int(s), dims=-1) for c, s in zip(labels, shifts)])
    x = gains * x + noise_std * torch.randn(x.shape, generator=gen)
    return x, labels


def build_loaders(cfg):
    gen = torch.Generator().manual_seed(cfg.data_seed)
    templates = _templates(cfg.n_classes, cfg.n_channels, cfg.window, gen)
    x_tr, y_tr = _sample(templates, cfg.train_per_class, cfg.noise_std, gen)
    x_va, y_va = _sample(templates, cfg.val_per_class, cfg.noise_std, gen)
    loader_gen = torch.Generator().manual_seed(cfg.seed)
    train = DataLoader(GestureWindows(x_tr, y_tr), batch_size=cfg.batch_size, shuffle=True, generator=loader_gen)
    val = DataLoader(GestureWindows(x_va, y_va), batch_size=512)
    return train, val
