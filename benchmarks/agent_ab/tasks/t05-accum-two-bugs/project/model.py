"""MLP student network."""
from torch import nn


class Student(nn.Module):
    def __init__(self, in_dim, num_classes, hidden=(128, 128), dropout=0.0):
        super().__init__()
        layers, prev = [], in_dim
        for h in hidden:
            layers += [nn.Linear(prev, h), nn.ReLU()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            prev = h
        layers.append(nn.Linear(prev, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def build_model(cfg):
    d, m = cfg["data"], cfg["model"]
    return Student(d["num_features"], d["num_classes"], m["hidden"], m["dropout"])
