"""MLP segment classifier."""
from __future__ import annotations

from typing import Dict, List

from torch import nn


class SegmentMLP(nn.Module):
    def __init__(self, in_dim: int, hidden: List[int], num_classes: int, dropout: float = 0.0):
        super().__init__()
        layers: List[nn.Module] = []
        prev = in_dim
        for width in hidden:
            layers += [nn.Linear(prev, width), nn.ReLU()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            prev = width
        layers.append(nn.Linear(prev, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def build_model(cfg: Dict) -> SegmentMLP:
    return SegmentMLP(cfg["data"]["num_features"], cfg["model"]["hidden"],
                      cfg["data"]["num_segments"], cfg["model"].get("dropout", 0.0))
