"""Train an encoder + linear head to classify points by which of two rings they lie on.

Both stages are trained end to end by the one loss.
"""

import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_FEATURES = 8
NUM_CLASSES = 2


def make_data(n, seed):
    """Two noisy concentric rings in the first two features; the other six are distractors."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    angle = torch.rand(n, generator=g) * 2 * math.pi
    radius = 0.5 + y.float() + 0.15 * torch.randn(n, generator=g)
    x = torch.randn(n, NUM_FEATURES, generator=g) * 0.5
    x[:, 0] = radius * torch.cos(angle)
    x[:, 1] = radius * torch.sin(angle)
    return x, y


class TwoStageClassifier(nn.Module):
    """Stage one embeds the raw features; stage two classifies the embedding."""

    def __init__(self, hidden=32, embedding=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(NUM_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, embedding))
        self.head = nn.Linear(embedding, NUM_CLASSES)

    def forward(self, x):
        features = self.encoder(x)
        return self.head(features)  # FIX: keep the graph so the loss also trains the encoder


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": TwoStageClassifier(),
        "batch": make_data(64, seed=1),
        "val_batch": make_data(64, seed=2),
        "loss_fn": nn.CrossEntropyLoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=3e-3),
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    val_x, val_y = make_data(512, seed=2)
    model = TwoStageClassifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(8):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            accuracy = (model(val_x).argmax(dim=1) == val_y).float().mean().item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}  val acc {accuracy:.3f}")


if __name__ == "__main__":
    main()
