"""Synthetic surrogate-regression data.

Inputs are standard normal features; targets come from a fixed random teacher
network plus Gaussian noise. A small fraction of *training* targets are
replaced by large glitches (as in the real sensor logs); validation is clean.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Teacher(nn.Module):
    def __init__(self, num_features, hidden, generator):
        super().__init__()
        self.w1 = torch.randn(num_features, hidden, generator=generator) / num_features ** 0.5
        self.b1 = torch.randn(hidden, generator=generator) * 0.1
        self.w2 = torch.randn(hidden, 1, generator=generator) / hidden ** 0.5

    @torch.no_grad()
    def forward(self, x):
        return torch.tanh(x @ self.w1 + self.b1) @ self.w2


def make_split(teacher, n, num_features, noise_std, generator, outlier_frac=0.0, outlier_scale=0.0):
    x = torch.randn(n, num_features, generator=generator)
    y = teacher(x) + noise_std * torch.randn(n, 1, generator=generator)
    if outlier_frac > 0:
        k = int(round(outlier_frac * n))
        idx = torch.randperm(n, generator=generator)[:k]
        y[idx] += outlier_scale * torch.randn(k, 1, generator=generator)
    return x, y


def build_datasets(cfg):
    d = cfg["data"]
    g = torch.Generator().manual_seed(1000 + int(cfg["seed"]))
    teacher = Teacher(d["num_features"], d.get("teacher_hidden", 48), g)
    train = make_split(teacher, d["train_size"], d["num_features"], d["noise_std"], g,
                       d.get("outlier_frac", 0.0), d.get("outlier_scale", 0.0))
    val = make_split(teacher, d["val_size"], d["num_features"], d["noise_std"], g)
    return TensorDataset(*train), TensorDataset(*val)


def infinite_loader(dataset, batch_size, seed):
    """Yields shuffled batches forever (one pass = one epoch)."""
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True, generator=g)
    while True:
        for batch in loader:
            yield batch


def build_loaders(cfg):
    train_ds, val_ds = build_datasets(cfg)
    t = cfg["train"]
    train_iter = infinite_loader(train_ds, t["batch_size"], int(cfg["seed"]))
    val_loader = DataLoader(val_ds, batch_size=512, shuffle=False)
    return train_iter, val_loader
