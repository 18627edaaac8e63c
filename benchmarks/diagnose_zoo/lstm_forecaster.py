"""A many-to-one LSTM forecaster of the PyTorch time-series tutorials (batch-first (B, T, 1) windows, last hidden state to a linear head, MSELoss on the next value), Adam 1e-3."""

from __future__ import annotations

import torch
from torch import nn

WINDOW = 20
COUNT = 48


class LSTMForecaster(nn.Module):
    def __init__(self, input_size: int = 1, hidden_size: int = 32, num_layers: int = 1):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.linear(out[:, -1, :])  # (B, 1): the next value


def make_windows(gen: torch.Generator):
    """Windows of a noisy two-frequency series; the target is the value right after each window."""
    t = torch.arange(WINDOW + 1).float()
    f = torch.tensor([0.1, 0.23])
    phase = 6.28 * torch.rand(COUNT, 2, generator=gen)
    amp = 0.5 + torch.rand(COUNT, 2, generator=gen)
    series = (amp[:, :, None] * torch.sin(f[None, :, None] * 6.28 * t + phase[:, :, None])).sum(1)
    series = series + 0.05 * torch.randn(series.shape, generator=gen)
    series = (series - series.mean()) / series.std()
    return series[:, :WINDOW, None], series[:, WINDOW:]


criterion = nn.MSELoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    x, y = batch
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x, y = make_windows(gen)
    spec = {
        "model": LSTMForecaster(),
        "batch": (x, y),
        "loss_fn": criterion,
        "task": "regression",
        "seq_dim": 1,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
