"""Synthetic customer-segment table: Gaussian clusters per class, a few informative features,
the rest noise, and a small fraction of flipped labels. The table is fixed by data.data_seed;
the training seed never touches it."""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_table(cfg: Dict) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    d = cfg["data"]
    rng = np.random.default_rng(d["data_seed"])
    k, c, f, inf = d["num_classes"], d["clusters_per_class"], d["num_features"], d["num_informative"]
    centres = rng.normal(0.0, 1.0, size=(k * c, inf)) * 2.0
    n = d["train_size"] + d["val_size"]
    cluster = rng.integers(0, k * c, size=n)
    y = cluster // c
    x_inf = centres[cluster] + rng.normal(0.0, d["cluster_spread"], size=(n, inf))
    x_noise = rng.normal(0.0, 1.0, size=(n, f - inf))
    x = np.concatenate([x_inf, x_noise], axis=1)
    x = x[:, rng.permutation(f)]
    flip = rng.random(n) < d["label_noise"]
    y = np.where(flip, rng.integers(0, k, size=n), y)
    n_tr = d["train_size"]
    return x[:n_tr], y[:n_tr], x[n_tr:], y[n_tr:]


class Standardizer:
    def fit(self, x: np.ndarray) -> "Standardizer":
        self.mean = x.mean(axis=0)
        self.std = x.std(axis=0) + 1e-6
        return self

    def transform(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / self.std


def build_loaders(cfg: Dict) -> Tuple[DataLoader, DataLoader]:
    x_tr, y_tr, x_va, y_va = make_table(cfg)
    scaler = Standardizer().fit(x_tr)
    to_ds = lambda x, y: TensorDataset(torch.tensor(scaler.transform(x), dtype=torch.float32),
                                       torch.tensor(y, dtype=torch.long))
    bs = cfg["data"]["batch_size"]
    train = DataLoader(to_ds(x_tr, y_tr), batch_size=bs, shuffle=True)
    val = DataLoader(to_ds(x_va, y_va), batch_size=256, shuffle=False)
    return train, val
