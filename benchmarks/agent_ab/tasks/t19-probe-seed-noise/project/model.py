"""MLP classifier. With export.probe the model also carries a small linear probe that maps the
penultimate features to a compact embedding for the downstream retrieval service; the probe is
not part of the classification path and is fitted after training (export.py)."""
from __future__ import annotations

from typing import Dict, List

import torch
from torch import nn

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}


class SegmentClassifier(nn.Module):
    def __init__(self, in_features: int, hidden: List[int], num_classes: int, dropout: float,
                 activation: str = "relu", probe_dim: int = 0):
        super().__init__()
        act = ACTIVATIONS[activation]
        layers: List[nn.Module] = []
        prev = in_features
        for width in hidden:
            layers += [nn.Linear(prev, width), act(), nn.Dropout(dropout)]
            prev = width
        self.encoder = nn.Sequential(*layers)
        # embedding probe for export (optional); trained separately in export.py
        self.probe = nn.Linear(prev, probe_dim) if probe_dim else None
        self.head = nn.Linear(prev, num_classes)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))

    @torch.no_grad()
    def embed(self, x: torch.Tensor) -> torch.Tensor:
        if self.probe is None:
            raise RuntimeError("model was built without export.probe")
        return self.probe(self.features(x))


def build_model(cfg: Dict) -> SegmentClassifier:
    m, d, e = cfg["model"], cfg["data"], cfg["export"]
    return SegmentClassifier(d["num_features"], m["hidden"], d["num_classes"], m["dropout"],
                             m.get("activation", "relu"), e["probe_dim"] if e["probe"] else 0)
