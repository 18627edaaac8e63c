"""Raissi et al. 2019's PINN-style fully connected tanh network (Xavier init, 2 inputs (x, t), 3 hidden layers of 20) fitted to a smooth field with L-BFGS (strong Wolfe line search) through a closure, as their code does."""

from __future__ import annotations

import math

import torch
from torch import nn

POINTS = 128
LAYERS = (2, 20, 20, 20, 1)


class PINN(nn.Module):
    def __init__(self, layers=LAYERS):
        super().__init__()
        mods: list[nn.Module] = []
        for i in range(len(layers) - 1):
            linear = nn.Linear(layers[i], layers[i + 1])
            nn.init.xavier_normal_(linear.weight)
            nn.init.zeros_(linear.bias)
            mods.append(linear)
            if i < len(layers) - 2:
                mods.append(nn.Tanh())
        self.net = nn.Sequential(*mods)

    def forward(self, xt: torch.Tensor) -> torch.Tensor:
        return self.net(xt)


def make_field(gen: torch.Generator):
    """Samples of u(x, t) = exp(-t) sin(pi x) (the heat equation's decaying mode) on [-1, 1] x [0, 1]."""
    x = 2 * torch.rand(POINTS, 1, generator=gen) - 1
    t = torch.rand(POINTS, 1, generator=gen)
    u = torch.exp(-t) * torch.sin(math.pi * x)
    return torch.cat([x, t], 1), u


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.LBFGS(params, lr=1.0, max_iter=5, history_size=50, line_search_fn="strong_wolfe")


def loss_fn(u_pred: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    return torch.mean((u_pred - u) ** 2)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    xt, u = batch

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(xt), u)
        loss.backward()
        return loss

    return optimizer.step(closure)  # the loss at the start of the step


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    xt, u = make_field(gen)
    spec = {
        "model": PINN(),
        "batch": (xt, u),
        "loss_fn": loss_fn,
        "task": "regression",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
