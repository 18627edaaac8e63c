import torch.nn as nn
import torch.nn.functional as F


class LinearClsHead(nn.Module):
    """Global-pool + linear classifier used on top of every backbone."""

    def __init__(self, in_channels, num_classes, dropout=0.2):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(in_channels, num_classes)

    def forward(self, feats):
        x = self.pool(feats).flatten(1)
        x = self.fc(self.drop(x))
        return x
