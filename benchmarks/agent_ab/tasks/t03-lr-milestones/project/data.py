"""Noisy interleaved spirals, generated on the fly."""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_spirals(num_classes, points_per_class, noise, turns, rng):
    xs, ys = [], []
    for k in range(num_classes):
        r = np.linspace(0.05, 1.0, points_per_class)
        theta = (k * 2 * np.pi / num_classes + r * turns * 2 * np.pi
                 + rng.normal(0, noise, points_per_class))
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))
        ys.append(np.full(points_per_class, k))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.int64)


def build_loaders(cfg):
    d = cfg["data"]
    rng = np.random.default_rng(cfg["seed"])
    x, y = make_spirals(d["num_classes"], d["points_per_class"], d["noise"], d["turns"], rng)
    perm = rng.permutation(len(x))
    n_val = int(len(x) * d["val_fraction"])
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    mean, std = x[train_idx].mean(0), x[train_idx].std(0)
    x = (x - mean) / std
    train = TensorDataset(torch.from_numpy(x[train_idx]), torch.from_numpy(y[train_idx]))
    val = TensorDataset(torch.from_numpy(x[val_idx]), torch.from_numpy(y[val_idx]))
    g = torch.Generator().manual_seed(cfg["seed"])
    bs = cfg["optim"]["batch_size"]
    return (DataLoader(train, batch_size=bs, shuffle=True, generator=g),
            DataLoader(val, batch_size=512))
