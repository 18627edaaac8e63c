"""1-D CNN for IMU gesture windows."""
from __future__ import annotations

import torch
from torch import nn


def conv_block(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv1d(c_in, c_out, kernel_size=5, padding=2),
        nn.BatchNorm1d(c_out),
        nn.ReLU(inplace=True),
        nn.MaxPool1d(2),
    )


class GestureNet(nn.Module):
    """Three conv blocks, global average pooling, and a class head.

    The head returns a distribution over gestures so the same module can be
    exported as-is to the phone app, which thresholds on the top score.
    """

    def __init__(self, n_channels: int, n_classes: int, width: int = 32, dropout: float = 0.1):
        super().__init__()
        self.features = nn.Sequential(
            conv_block(n_channels, width),
            conv_block(width, 2 * width),
            conv_block(2 * width, 4 * width),
        )
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(dropout),
            nn.Linear(4 * width, n_classes),
            nn.Softmax(dim=-1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(self.features(x)))


def build_model(cfg) -> GestureNet:
    return GestureNet(cfg.n_channels, cfg.n_classes, cfg.width, cfg.dropout)
