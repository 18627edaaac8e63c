"""Defect classifier: an MLP over the line-scan features."""
from __future__ import annotations

from typing import Dict, List

import torch
from torch import nn


class DefectNet(nn.Module):
    def __init__(self, in_features: int, hidden: List[int], num_classes: int, dropout: float):
        super().__init__()
        layers: List[nn.Module] = []
        prev = in_features
        for width in hidden:
            layers += [nn.Linear(prev, width), nn.LayerNorm(width), nn.ReLU(), nn.Dropout(dropout)]
            prev = width
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(prev, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def build_model(cfg: Dict) -> DefectNet:
    d, m = cfg["data"], cfg["model"]
    return DefectNet(d["num_features"], m["hidden"], len(d["class_names"]), m["dropout"])
