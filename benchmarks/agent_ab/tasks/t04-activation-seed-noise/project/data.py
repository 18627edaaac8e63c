"""Synthetic sensor-fault dataset: a Gaussian mixture with a few clusters per
fault class, plus a share of mislabelled rows (as in the field logs)."""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_dataset(cfg):
    d = cfg["data"]
    rng = np.random.default_rng(d["data_seed"])
    k, f = d["num_classes"], d["num_features"]
    centers = rng.normal(0, d["cluster_spread"], size=(k, d["clusters_per_class"], f))
    n = d["train_size"] + d["val_size"]
    y = rng.integers(k, size=n)
    c = rng.integers(d["clusters_per_class"], size=n)
    x = centers[y, c] + rng.normal(size=(n, f))
    flip = rng.random(n) < d["label_noise"]
    y = np.where(flip, rng.integers(k, size=n), y)
    x = x.astype(np.float32)
    tr = slice(0, d["train_size"])
    va = slice(d["train_size"], n)
    mean, std = x[tr].mean(0), x[tr].std(0) + 1e-6
    x = (x - mean) / std
    return (torch.from_numpy(x[tr]), torch.from_numpy(y[tr]).long(),
            torch.from_numpy(x[va]), torch.from_numpy(y[va]).long())


def build_loaders(cfg, seed):
    x_tr, y_tr, x_va, y_va = make_dataset(cfg)
    g = torch.Generator().manual_seed(seed)
    train = DataLoader(TensorDataset(x_tr, y_tr), batch_size=cfg["train"]["batch_size"],
                       shuffle=True, generator=g)
    val = DataLoader(TensorDataset(x_va, y_va), batch_size=len(x_va))
    return train, val
