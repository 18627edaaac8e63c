"""Train a small MLP to sort 16-feature points into 4 Gaussian clusters.

The model returns raw logits and evaluation runs with dropout switched off.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 4
NUM_FEATURES = 16


def make_data(n, seed):
    """Points around one fixed random centre per class, labels 0..3."""
    g = torch.Generator().manual_seed(1234)
    centres = torch.randn(NUM_CLASSES, NUM_FEATURES, generator=g) * 1.5
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centres[y] + torch.randn(n, NUM_FEATURES, generator=g)
    return x, y


class Classifier(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(NUM_FEATURES, hidden), nn.ReLU(), nn.Dropout(0.1))
        self.head = nn.Linear(hidden, NUM_CLASSES)

    def forward(self, x):
        logits = self.head(self.body(x))
        return logits  # FIX: raw logits; CrossEntropyLoss applies log-softmax itself


def evaluate(model, loader):
    model.eval()  # FIX: switch dropout off while measuring accuracy
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += y.numel()
    return correct / total


def debug_spec():
    torch.manual_seed(0)
    x, y = make_data(64, seed=1)
    return {
        "model": Classifier(),
        "batch": (x, y),
        "val_batch": make_data(64, seed=2),
        "loss_fn": nn.CrossEntropyLoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=1e-3),
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }


def main():
    torch.manual_seed(0)
    train_loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    val_loader = DataLoader(TensorDataset(*make_data(512, seed=2)), batch_size=256)
    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(5):
        model.train()
        running = 0.0
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
        accuracy = evaluate(model, val_loader)
        print(f"epoch {epoch}: loss {running / len(train_loader):.4f}  val acc {accuracy:.3f}")


if __name__ == "__main__":
    main()
