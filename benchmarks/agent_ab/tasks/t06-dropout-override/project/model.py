"""MLP classifier for the churn features."""
from __future__ import annotations

import torch
from torch import nn

from config import ModelConfig

_ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}


class Block(nn.Module):
    def __init__(self, dim_in: int, dim_out: int, activation: str, dropout: float):
        super().__init__()
        self.linear = nn.Linear(dim_in, dim_out)
        self.norm = nn.LayerNorm(dim_out)
        self.act = _ACTIVATIONS[activation]()
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.act(self.norm(self.linear(x))))


class ChurnMLP(nn.Module):
    def __init__(self, n_features: int, n_classes: int, cfg: ModelConfig):
        super().__init__()
        dims = [n_features] + [cfg.hidden_dim] * cfg.num_layers
        self.blocks = nn.Sequential(
            *[Block(a, b, cfg.activation, cfg.dropout) for a, b in zip(dims[:-1], dims[1:])]
        )
        self.head = nn.Linear(cfg.hidden_dim, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x))


def build_model(n_features: int, n_classes: int, cfg: ModelConfig) -> ChurnMLP:
    return ChurnMLP(n_features, n_classes, cfg)
