"""Fault classifier: MLP over the standardised operating-point and vibration features."""
from __future__ import annotations

from typing import Dict, List

import torch
from torch import nn


class FaultNet(nn.Module):
    def __init__(self, in_features: int, hidden: List[int], num_classes: int, dropout: float):
        super().__init__()
        layers: List[nn.Module] = []
        prev = in_features
        for width in hidden:
            layers += [nn.Linear(prev, width), nn.ReLU(), nn.Dropout(dropout)]
            prev = width
        layers.append(nn.Linear(prev, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def build_model(cfg: Dict) -> FaultNet:
    d, m = cfg["data"], cfg["model"]
    return FaultNet(len(d["features"]), m["hidden"], len(d["classes"]), m["dropout"])
