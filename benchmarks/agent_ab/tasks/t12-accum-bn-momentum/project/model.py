"""MLP classifier with BatchNorm after every hidden projection."""
from __future__ import annotations

from typing import List

from torch import nn

from config import Config


class GestureNet(nn.Module):
    def __init__(self, in_dim: int, hidden: List[int], num_classes: int, dropout: float,
                 bn_momentum: float = 0.1):
        super().__init__()
        self.input_norm = nn.BatchNorm1d(in_dim, momentum=bn_momentum)
        blocks = []
        prev = in_dim
        for width in hidden:
            blocks += [nn.Linear(prev, width, bias=False),
                       nn.BatchNorm1d(width, momentum=bn_momentum),
                       nn.ReLU(inplace=True), nn.Dropout(dropout)]
            prev = width
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(prev, num_classes)

    def forward(self, x):
        return self.head(self.body(self.input_norm(x)))


def build_model(cfg: Config) -> GestureNet:
    m = cfg.model
    return GestureNet(cfg.data.num_features, m.hidden, cfg.data.num_classes, m.dropout,
                      m.bn_momentum)
