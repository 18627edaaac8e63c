"""Synthetic process data: 16 sensor readings -> exhaust-gas temperature in Kelvin.

Targets are kept in physical units; the model is trained on standardised
targets through ``TargetScaler`` (fit on the training split only).
"""
import json
import math

import torch
from torch.utils.data import DataLoader, TensorDataset


class TargetScaler:
    """Standardises targets: z = (y - mean) / std, and back."""

    def __init__(self, mean=0.0, std=1.0):
        self.mean = float(mean)
        self.std = float(std)

    @classmethod
    def fit(cls, y):
        return cls(y.mean().item(), y.std().item())

    def transform(self, y):
        return (y - self.mean) / self.std

    def inverse(self, z):
        return z * self.std + self.mean

    def to_json(self):
        return json.dumps({"mean": self.mean, "std": self.std})

    @classmethod
    def from_json(cls, text):
        d = json.loads(text)
        return cls(d["mean"], d["std"])


def _process(x, generator):
    """Smooth nonlinear response of the plant (fixed for a given data seed)."""
    d = x.shape[1]
    a = torch.randn(d, generator=generator) / math.sqrt(d)
    w = torch.randn(d, 4, generator=generator) / math.sqrt(d)
    v = torch.randn(4, generator=generator) / 2.0
    return x @ a + 0.5 * torch.tanh(x @ w) @ v


def make_data(cfg):
    d = cfg["data"]
    g = torch.Generator().manual_seed(4242)
    n = d["train_size"] + d["val_size"]
    x = torch.randn(n, d["num_features"], generator=g)
    raw = _process(x, torch.Generator().manual_seed(7))
    raw = (raw - raw.mean()) / raw.std()
    y = d["base_temp_k"] + d["amplitude_k"] * raw + d["noise_k"] * torch.randn(n, generator=g)
    y = y.unsqueeze(1)
    ntr = d["train_size"]
    return (x[:ntr], y[:ntr]), (x[ntr:], y[ntr:])


def build_loaders(cfg):
    (xtr, ytr), (xva, yva) = make_data(cfg)
    scaler = TargetScaler.fit(ytr)
    g = torch.Generator().manual_seed(int(cfg["seed"]))
    bs = cfg["train"]["batch_size"]
    train = DataLoader(TensorDataset(xtr, ytr), batch_size=bs, shuffle=True, generator=g)
    val = DataLoader(TensorDataset(xva, yva), batch_size=1024, shuffle=False)
    return train, val, scaler
