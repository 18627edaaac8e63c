"""Synthetic account features labelled by a fixed two-layer teacher (6 segments)."""
from __future__ import annotations

from typing import Dict, Tuple

import torch
from torch.utils.data import DataLoader, TensorDataset

TEACHER_SEED = 1234


def generate(cfg: Dict, n: int, seed: int) -> Tuple[torch.Tensor, torch.Tensor]:
    d = cfg["data"]
    g = torch.Generator().manual_seed(TEACHER_SEED)
    w = torch.randn(d["num_features"], 8, generator=g) / d["num_features"] ** 0.5
    v = torch.randn(8, d["num_segments"], generator=g)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d["num_features"], generator=g)
    y = (torch.tanh(x @ w) @ v).argmax(dim=1)
    return x, y


def build_loaders(cfg: Dict) -> Tuple[DataLoader, DataLoader]:
    d = cfg["data"]
    x, y = generate(cfg, d["num_samples"], seed=1)
    n_val = int(d["num_samples"] * d["val_fraction"])
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(cfg["seed"]))
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    train = TensorDataset(x[train_idx], y[train_idx])
    val = TensorDataset(x[val_idx], y[val_idx])
    g = torch.Generator().manual_seed(cfg["seed"] + 1)
    return (DataLoader(train, batch_size=cfg["train"]["batch_size"], shuffle=True, generator=g),
            DataLoader(val, batch_size=1000, shuffle=False))
