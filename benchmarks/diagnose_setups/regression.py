"""Regression MLP (Tanh, plus a custom autograd activation) on a smooth teacher function.

Raw inputs come on an arbitrary scale (about 5 * z + 3, like physical measurements);
`preprocess` standardises them with statistics of the training split only, which is the
step the leakage check traces. Targets are standardised with training statistics too.
`debug_spec(seed)` returns the diagnose contract dict, with a held-out `val_batch` and the
custom autograd function listed under `gradcheck`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_FEATURES = 8
TRAIN_SIZE = 512  # enough rows that fitting the rule is much faster than memorising rows
TEST_SIZE = 128
HIDDEN = 64
RAW_SCALE = 5.0
RAW_OFFSET = 3.0
LEARNING_RATE = 5e-3


class SoftSignFunction(torch.autograd.Function):
    """x / (1 + |x|) with a hand-written backward: d/dx = 1 / (1 + |x|)^2."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / (1 + x.abs()) ** 2


class SoftSign(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return SoftSignFunction.apply(x)


class RegressionMLP(nn.Module):
    def __init__(self, in_features: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.act1 = nn.Tanh()
        self.fc2 = nn.Linear(hidden, hidden)
        self.act2 = SoftSign()
        self.out = nn.Linear(hidden, 1)
        # Xavier init with the tanh gain keeps the pre-activations in tanh's responsive range.
        nn.init.xavier_uniform_(self.fc1.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.zeros_(self.fc1.bias)
        # A small output layer: predictions start near 0 (the target mean), so the initial
        # loss is about mean(y^2) = 1 whatever the seed.
        nn.init.normal_(self.out.weight, std=0.05)
        nn.init.zeros_(self.out.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.act1(self.fc1(x))
        h = self.act2(self.fc2(h))
        return self.out(h)  # (B, 1)


def teacher(z: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A smooth nonlinear function of the standardised features."""
    w1 = torch.randn(NUM_FEATURES, generator=gen) / NUM_FEATURES**0.5
    w2 = torch.randn(NUM_FEATURES, generator=gen) / NUM_FEATURES**0.5
    return 2.0 * torch.tanh(z @ w1) + 0.5 * (z @ w2)


def make_raw_data(gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    z = torch.randn(TRAIN_SIZE + TEST_SIZE, NUM_FEATURES, generator=gen)
    y = teacher(z, gen)
    raw_inputs = RAW_SCALE * z + RAW_OFFSET  # what the "sensor" records
    return raw_inputs, y


def preprocess(train_inputs: torch.Tensor, test_inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Standardise both splits with statistics fitted on the training split only."""
    stats_source = train_inputs
    mean = stats_source.mean(dim=0)
    std = stats_source.std(dim=0).clamp(min=1e-8)  # a constant feature must not divide by zero
    return (train_inputs - mean) / std, (test_inputs - mean) / std


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=LEARNING_RATE)


def loss_fn(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.mse_loss(outputs, targets)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    inputs, targets = batch
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    raw_inputs, y = make_raw_data(gen)
    train_raw, test_raw = raw_inputs[:TRAIN_SIZE], raw_inputs[TRAIN_SIZE:]
    train_inputs, test_inputs = preprocess(train_raw, test_raw)
    # Standardise the targets with training statistics; keep the (B, 1) shape of the output.
    y_mean, y_std = y[:TRAIN_SIZE].mean(), y[:TRAIN_SIZE].std().clamp(min=1e-8)
    targets = ((y - y_mean) / y_std).unsqueeze(1)
    model = RegressionMLP(NUM_FEATURES, HIDDEN)
    return {
        "model": model,
        "batch": (train_inputs, targets[:TRAIN_SIZE]),
        "val_batch": (test_inputs, targets[TRAIN_SIZE:]),
        "loss_fn": loss_fn,
        "optimizer": make_optimizer,
        "task": "regression",
        "preprocess": preprocess,
        "train_step": train_step,
        "gradcheck": {
            "SoftSignFunction": (SoftSignFunction.apply, (torch.randn(6, 3, dtype=torch.float64, requires_grad=True),)),
        },
    }
