"""Defect classifier: a small MLP over the scan features."""
from torch import nn


class DefectClassifier(nn.Module):
    def __init__(self, n_features: int, n_classes: int, hidden: int = 128, layers: int = 2, dropout: float = 0.1):
        super().__init__()
        dims = [n_features] + [hidden] * layers
        blocks = []
        for a, b in zip(dims[:-1], dims[1:]):
            blocks += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU(), nn.Dropout(dropout)]
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))
