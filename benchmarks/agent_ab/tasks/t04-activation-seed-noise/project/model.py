"""MLP classifier with configurable activation."""
from torch import nn

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU, "tanh": nn.Tanh}


class FaultClassifier(nn.Module):
    def __init__(self, in_dim, num_classes, hidden=(64, 64), activation="relu", dropout=0.0):
        super().__init__()
        act = ACTIVATIONS[activation]
        layers, prev = [], in_dim
        for h in hidden:
            layers += [nn.Linear(prev, h), act(), nn.Dropout(dropout)]
            prev = h
        layers.append(nn.Linear(prev, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def build_model(cfg):
    m, d = cfg["model"], cfg["data"]
    return FaultClassifier(d["num_features"], d["num_classes"], m["hidden"],
                           m["activation"], m["dropout"])
