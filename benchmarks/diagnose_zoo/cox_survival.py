"""DeepSurv (Katzman et al. 2018, jaredleekatzman/DeepSurv; PyTorch port czifan/DeepSurv.pytorch, configs/gaussian.ini): MLP with its three 17-unit Linear-BatchNorm-ReLU-Dropout(0.401) blocks and a linear log-risk output, on the paper's simulated Gaussian-risk survival data (2 informative + 2 noise covariates, censoring), trained full-batch on the Cox negative log partial likelihood over the batch's risk sets (sorted by time, descending; -sum over observed events of (h_i - log sum_{t_j >= t_i} exp h_j) / number of events), Adam lr 3.194e-3."""

from __future__ import annotations

import math

import torch
from torch import nn

NUM_FEATURES = 4  # x0, x1 carry the risk, x2, x3 are noise
DIMS = (NUM_FEATURES, 17, 17, 17, 1)
DROP = 0.401
BATCH = 128
LAMBDA_MAX = 20.0  # hazard ratio between the centre and the rim of the Gaussian risk
RADIUS = 0.5
AVERAGE_DEATH = 5.0
END_TIME = 4.0  # administrative censoring (about 45% of the samples censored)


class DeepSurv(nn.Module):
    def __init__(self, dims=DIMS, drop: float = DROP):
        super().__init__()
        layers = []
        for i in range(len(dims) - 2):
            layers += [nn.Linear(dims[i], dims[i + 1]), nn.BatchNorm1d(dims[i + 1]), nn.ReLU(), nn.Dropout(drop)]
        layers.append(nn.Linear(dims[-2], dims[-1]))  # linear output: the log hazard ratio h(x)
        self.model = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)


def negative_log_partial_likelihood(risk_pred: torch.Tensor, targets) -> torch.Tensor:
    """Cox partial likelihood with Breslow risk sets. The risk set of sample i is every sample still at risk at
    t_i: after sorting by time descending it is the prefix up to i, so log sum exp is a running logcumsumexp."""
    time, event = targets
    order = torch.argsort(time, descending=True)
    risk = risk_pred.reshape(-1)[order]
    event = event[order].to(risk.dtype)
    log_risk = torch.logcumsumexp(risk, dim=0)
    uncensored_likelihood = risk - log_risk
    censored_likelihood = uncensored_likelihood * event
    num_observed_events = event.sum()
    return -censored_likelihood.sum() / num_observed_events


def true_log_risk(x: torch.Tensor) -> torch.Tensor:
    """Katzman et al.'s Gaussian risk: log(lambda_max) * exp(-(x0^2 + x1^2) / (2 r^2))."""
    z = x[:, 0] ** 2 + x[:, 1] ** 2
    return math.log(LAMBDA_MAX) * torch.exp(-z / (2 * RADIUS ** 2))


def make_batch(seed: int, count: int = BATCH):
    gen = torch.Generator().manual_seed(seed)
    x = 2 * torch.rand(count, NUM_FEATURES, generator=gen) - 1
    h = true_log_risk(x)
    h = h - h.mean()
    u = torch.rand(count, generator=gen).clamp_min(1e-12)
    death_time = -torch.log(u) * AVERAGE_DEATH / torch.exp(h)  # exponential with hazard exp(h) / average_death
    event = (death_time < END_TIME).long()
    time = death_time.clamp(max=END_TIME)
    return x, (time, event)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3.194e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": DeepSurv(),
        "batch": batch,
        "loss_fn": negative_log_partial_likelihood,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
