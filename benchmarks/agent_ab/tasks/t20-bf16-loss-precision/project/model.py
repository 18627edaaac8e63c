"""MLP surrogate; predicts the standardised temperature."""
from torch import nn


class Surrogate(nn.Module):
    def __init__(self, num_features, width=128, depth=3):
        super().__init__()
        layers, d = [], num_features
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.LayerNorm(width), nn.SiLU()]
            d = width
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        return self.head(self.body(x))


def build_model(cfg):
    return Surrogate(cfg["data"]["num_features"], cfg["model"]["width"], cfg["model"]["depth"])
