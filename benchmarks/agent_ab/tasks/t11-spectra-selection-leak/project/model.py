"""Regression head on the selected channels."""
from __future__ import annotations

from typing import Dict, List

from torch import nn


class ConcentrationRegressor(nn.Module):
    def __init__(self, in_dim: int, hidden: List[int], dropout: float = 0.0):
        super().__init__()
        layers: List[nn.Module] = []
        prev = in_dim
        for width in hidden:
            layers += [nn.Linear(prev, width), nn.ReLU(), nn.Dropout(dropout)]
            prev = width
        layers.append(nn.Linear(prev, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def build_model(cfg: Dict, in_dim: int) -> ConcentrationRegressor:
    mcfg = cfg["model"]
    return ConcentrationRegressor(in_dim, mcfg.get("hidden", []), mcfg.get("dropout", 0.0))
