"""Train a small MLP with SGD + momentum to classify 12-feature samples into 3 classes.

Symptom: the loss blows up within the first epoch and keeps growing by orders of
magnitude, while validation accuracy hovers far below what this easy task allows.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

NUM_FEATURES = 12
NUM_CLASSES = 3


def make_data(n, seed):
    """Class = which of three fixed random directions the sample points along most."""
    directions = torch.randn(NUM_CLASSES, NUM_FEATURES, generator=torch.Generator().manual_seed(7))
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, NUM_FEATURES, generator=g)
    return x, (x @ directions.T).argmax(dim=1)


class MLP(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(NUM_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, NUM_CLASSES))

    def forward(self, x):
        return self.net(x)


def make_optimizer(params):
    return torch.optim.SGD(params, lr=0.05, momentum=0.9)


def train_step(model, batch, optimizer):
    """One update on one batch; returns the loss."""
    x, y = batch
    # BUG: the gradients of every earlier step are still in .grad and get added to
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": MLP(),
        "batch": make_data(64, seed=1),
        "val_batch": make_data(64, seed=2),
        "loss_fn": F.cross_entropy,
        "optimizer": make_optimizer,
        "train_step": train_step,
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    val_x, val_y = make_data(512, seed=2)
    model = MLP()
    optimizer = make_optimizer(model.parameters())
    for epoch in range(5):
        model.train()
        total = 0.0
        for batch in loader:
            total += train_step(model, batch, optimizer).item()
        model.eval()
        with torch.no_grad():
            accuracy = (model(val_x).argmax(dim=1) == val_y).float().mean().item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}  val acc {accuracy:.3f}")


if __name__ == "__main__":
    main()
