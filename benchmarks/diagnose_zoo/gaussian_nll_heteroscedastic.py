"""Heteroscedastic regression (Nix & Weigend 1994; Kendall & Gal 2017, "What Uncertainties Do We Need", Eq. 8): a shared ReLU MLP with a mean head and a log-variance head s = log sigma^2 (predicting s keeps the variance positive and the loss stable), loss mean(0.5 * exp(-s) * (y - mu)^2 + 0.5 * s), on 1-D data whose noise grows with |x|; Adam lr 1e-3 (the PyTorch default; the paper fixes no optimiser for this toy form)."""

from __future__ import annotations

import torch
from torch import nn

HIDDEN = 64
BATCH = 128


class HeteroscedasticMLP(nn.Module):
    """forward(x [B, 1]) -> (mean [B, 1], log_variance [B, 1])."""

    def __init__(self, hidden: int = HIDDEN):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mean = nn.Linear(hidden, 1)
        self.log_var = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor):
        h = self.body(x)
        return self.mean(h), self.log_var(h)


def heteroscedastic_loss(outputs, y: torch.Tensor) -> torch.Tensor:
    """Kendall & Gal's aleatoric loss: the Gaussian NLL without its constant, with s = log sigma^2."""
    mean, log_var = outputs
    return (0.5 * torch.exp(-log_var) * (y - mean) ** 2 + 0.5 * log_var).mean()


def true_mean(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(2 * x) + 0.3 * x


def true_std(x: torch.Tensor) -> torch.Tensor:
    return 0.1 + 0.4 * x.abs() / 3


def make_batch(seed: int, count: int = BATCH):
    gen = torch.Generator().manual_seed(seed)
    x = 6 * torch.rand(count, 1, generator=gen) - 3
    y = true_mean(x) + true_std(x) * torch.randn(count, 1, generator=gen)
    return x, y


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": HeteroscedasticMLP(),
        "batch": batch,
        "loss_fn": heteroscedastic_loss,
        "task": "regression",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
