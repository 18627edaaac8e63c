"""Train an MLP with dropout to classify 20-feature samples into 5 classes.

Dropout is a module, so model.eval() switches it off and evaluation is repeatable.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

NUM_FEATURES = 20
NUM_CLASSES = 5


def make_data(n, seed):
    """Overlapping Gaussian clusters around fixed random class centres."""
    centres = torch.randn(NUM_CLASSES, NUM_FEATURES, generator=torch.Generator().manual_seed(99))
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    return centres[y] + 1.2 * torch.randn(n, NUM_FEATURES, generator=g), y


class DropoutMLP(nn.Module):
    def __init__(self, hidden=128, p=0.3):
        super().__init__()
        self.fc1 = nn.Linear(NUM_FEATURES, hidden)
        self.fc2 = nn.Linear(hidden, NUM_CLASSES)
        self.dropout = nn.Dropout(p)  # FIX: a module follows model.train() / model.eval()

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = self.dropout(h)  # FIX: (F.dropout(h, p, training=self.training) would also work)
        return self.fc2(h)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": DropoutMLP(),
        "batch": make_data(64, seed=1),
        "val_batch": make_data(64, seed=2),
        "loss_fn": nn.CrossEntropyLoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=1e-3),
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    val_x, val_y = make_data(512, seed=2)
    model = DropoutMLP()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(5):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        first, second = accuracy(model, val_x, val_y), accuracy(model, val_x, val_y)
        print(f"epoch {epoch}: loss {total / len(loader):.4f}  val acc {first:.3f} / re-run {second:.3f}")


if __name__ == "__main__":
    main()
