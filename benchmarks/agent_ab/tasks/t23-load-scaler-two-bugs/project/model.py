"""Load regressor: MLP from calendar/weather features to the transformed load."""
from __future__ import annotations

from typing import Dict, List

import torch
from torch import nn


class LoadMLP(nn.Module):
    def __init__(self, in_features: int, hidden: List[int], dropout: float = 0.0):
        super().__init__()
        layers: List[nn.Module] = []
        prev = in_features
        for width in hidden:
            layers += [nn.Linear(prev, width), nn.SiLU()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            prev = width
        layers.append(nn.Linear(prev, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


def build_model(cfg: Dict) -> LoadMLP:
    return LoadMLP(len(cfg["data"]["features"]), cfg["model"]["hidden"], cfg["model"]["dropout"])
