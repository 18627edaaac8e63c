"""MLP regressor for hourly plant output, with input standardisation built in."""
from __future__ import annotations

import torch
from torch import nn


class PowerRegressor(nn.Module):
    def __init__(self, n_features: int, hidden: int = 128, layers: int = 3):
        super().__init__()
        self.register_buffer("x_mean", torch.zeros(n_features))
        self.register_buffer("x_std", torch.ones(n_features))
        dims = [n_features] + [hidden] * layers
        body = []
        for a, b in zip(dims[:-1], dims[1:]):
            body += [nn.Linear(a, b), nn.SiLU()]
        self.body = nn.Sequential(*body)
        self.out = nn.Linear(hidden, 1)

    def set_input_stats(self, mean: torch.Tensor, std: torch.Tensor) -> None:
        self.x_mean.copy_(mean)
        self.x_std.copy_(std)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: raw sensor features (n, n_features) -> predicted kW (n, 1)."""
        return self.out(self.body((x - self.x_mean) / self.x_std))
