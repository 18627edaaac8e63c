"""Regress a house-price-like score from six raw tabular features with a small MLP.

Features are standardised with statistics fitted on the training rows only.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_FEATURES = 6
# raw units: floor area, rooms, age, distance to centre, lot size, noise level
SCALE = torch.tensor([40.0, 1.5, 20.0, 8.0, 300.0, 10.0])
OFFSET = torch.tensor([90.0, 4.0, 35.0, 12.0, 600.0, 55.0])


def make_table(n, seed):
    """Raw features in their own units; the target is already on a unit scale."""
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n, NUM_FEATURES, generator=g)
    y = 0.8 * z[:, 0] - 0.5 * z[:, 1] * z[:, 2] + 0.4 * torch.tanh(z[:, 3]) + 0.1 * torch.randn(n, generator=g)
    return z * SCALE + OFFSET, y


def split(x, y, test_fraction=0.2, seed=0):
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return x[train], x[test], y[train], y[test]


def fit_scaler(x):
    return x.mean(dim=0), x.std(dim=0).clamp_min(1e-6)


def preprocess(train_x, test_x):
    """Standardise both splits with one set of per-feature statistics."""
    mean, std = fit_scaler(train_x)  # FIX: fit on the training rows only, then apply to both splits
    return (train_x - mean) / std, (test_x - mean) / std


class Regressor(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(NUM_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def debug_spec():
    torch.manual_seed(0)
    train_x, test_x, train_y, test_y = split(*make_table(640, seed=1))
    train_x, test_x = preprocess(train_x, test_x)
    return {
        "model": Regressor(),
        "batch": (train_x[:64], train_y[:64]),
        "val_batch": (test_x[:64], test_y[:64]),
        "loss_fn": nn.MSELoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=1e-3),
        "task": "regression",
        "preprocess": preprocess,
    }


def main():
    torch.manual_seed(0)
    train_x, test_x, train_y, test_y = split(*make_table(2000, seed=1))
    train_x, test_x = preprocess(train_x, test_x)
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=64, shuffle=True)
    model = Regressor()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(6):
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
            test_mse = criterion(model(test_x), test_y).item()
        print(f"epoch {epoch}: train mse {total / len(loader):.4f}  test mse {test_mse:.4f}")


if __name__ == "__main__":
    main()
