"""Fit an MLP regressor to a smooth nonlinear function of 10 input features.

Predictions and targets have the same shape, (B,), so the loss compares them pairwise.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_FEATURES = 10


def make_data(n, seed):
    """Standard-normal features; a target with mean about 0 and variance about 1."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, NUM_FEATURES, generator=g)
    y = torch.sin(1.5 * x[:, 0]) + 0.5 * x[:, 1] * x[:, 2] + 0.3 * x[:, 3] + 0.1 * torch.randn(n, generator=g)
    return x, y


class Regressor(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(NUM_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)  # FIX: (B, 1) -> (B,), the shape of the targets


def debug_spec():
    torch.manual_seed(0)
    return {
        "model": Regressor(),
        "batch": make_data(64, seed=1),
        "val_batch": make_data(64, seed=2),
        "loss_fn": nn.MSELoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=1e-3),
        "task": "regression",
    }


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*make_data(2048, seed=1)), batch_size=64, shuffle=True)
    val_x, val_y = make_data(512, seed=2)
    model = Regressor()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(8):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y.view(-1))
            loss.backward()
            optimizer.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            val_loss = criterion(model(val_x), val_y.view(-1)).item()
        print(f"epoch {epoch}: train mse {total / len(loader):.4f}  val mse {val_loss:.4f}")


if __name__ == "__main__":
    main()
