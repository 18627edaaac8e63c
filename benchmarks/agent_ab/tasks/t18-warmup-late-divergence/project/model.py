"""Residual MLP regressor."""
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, width, dropout=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(2 * width, width)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = self.fc2(self.drop(torch.nn.functional.gelu(self.fc1(self.norm(x)))))
        return x + h


class Regressor(nn.Module):
    def __init__(self, num_features, width=96, depth=3, dropout=0.0):
        super().__init__()
        self.inp = nn.Linear(num_features, width)
        self.blocks = nn.Sequential(*[ResidualBlock(width, dropout) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.inp(x))))


def build_model(cfg):
    m = cfg["model"]
    return Regressor(cfg["data"]["num_features"], m["width"], m["depth"], m.get("dropout", 0.0))
