"""RealNVP (Dinh et al. 2017) on 2-D noisy moons as in senya-ashukha/real-nvp-pytorch: 6 affine coupling layers with alternating binary masks held in a frozen nn.Parameter, scale net LeakyReLU-MLP ending in Tanh, translation net LeakyReLU-MLP, exact NLL -(log N(f(x); 0, I) + log|det J|) averaged over the batch, Adam lr 1e-4 over the trainable parameters only."""

from __future__ import annotations

import math

import torch
from torch import distributions, nn

HIDDEN = 64  # the notebook uses 256
COUNT = 100  # make_moons(n_samples=100) per step in the notebook


def nets() -> nn.Module:
    return nn.Sequential(nn.Linear(2, HIDDEN), nn.LeakyReLU(), nn.Linear(HIDDEN, HIDDEN), nn.LeakyReLU(), nn.Linear(HIDDEN, 2), nn.Tanh())


def nett() -> nn.Module:
    return nn.Sequential(nn.Linear(2, HIDDEN), nn.LeakyReLU(), nn.Linear(HIDDEN, HIDDEN), nn.LeakyReLU(), nn.Linear(HIDDEN, 2))


class RealNVP(nn.Module):
    def __init__(self, mask: torch.Tensor):
        super().__init__()
        self.prior = distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
        self.mask = nn.Parameter(mask, requires_grad=False)
        self.t = nn.ModuleList([nett() for _ in range(len(mask))])
        self.s = nn.ModuleList([nets() for _ in range(len(mask))])

    def g(self, z: torch.Tensor) -> torch.Tensor:
        """Latent -> data (sampling direction)."""
        x = z
        for i in range(len(self.t)):
            x_ = x * self.mask[i]
            s = self.s[i](x_) * (1 - self.mask[i])
            t = self.t[i](x_) * (1 - self.mask[i])
            x = x_ + (1 - self.mask[i]) * (x * torch.exp(s) + t)
        return x

    def f(self, x: torch.Tensor):
        """Data -> latent, with log|det df/dx| per sample."""
        log_det_j, z = x.new_zeros(x.shape[0]), x
        for i in reversed(range(len(self.t))):
            z_ = self.mask[i] * z
            s = self.s[i](z_) * (1 - self.mask[i])
            t = self.t[i](z_) * (1 - self.mask[i])
            z = (1 - self.mask[i]) * (z - t) * torch.exp(-s) + z_
            log_det_j = log_det_j - s.sum(dim=1)
        return z, log_det_j

    def forward(self, x: torch.Tensor):
        return self.f(x)

    def log_prob(self, x: torch.Tensor) -> torch.Tensor:
        z, logp = self.f(x)
        return self.prior.log_prob(z) + logp

    @torch.no_grad()
    def sample(self, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
        return self.g(torch.randn(n, 2, generator=generator))


def standard_normal_log_prob(z: torch.Tensor) -> torch.Tensor:
    return -0.5 * (z ** 2).sum(dim=1) - z.shape[1] * 0.5 * math.log(2 * math.pi)


def flow_nll(outputs, _targets=None) -> torch.Tensor:
    """-flow.log_prob(x).mean(): the exact negative log-likelihood in nats per sample."""
    z, log_det_j = outputs
    return -(standard_normal_log_prob(z) + log_det_j).mean()


def make_moons(gen: torch.Generator, n: int, noise: float = 0.05) -> torch.Tensor:
    """sklearn.datasets.make_moons(n_samples=n, noise=noise), shuffled."""
    n_out = n // 2
    n_in = n - n_out
    a = torch.linspace(0, math.pi, n_out)
    b = torch.linspace(0, math.pi, n_in)
    outer = torch.stack([a.cos(), a.sin()], dim=1)
    inner = torch.stack([1 - b.cos(), 1 - b.sin() - 0.5], dim=1)
    x = torch.cat([outer, inner])
    x = x + noise * torch.randn(x.shape, generator=gen)
    return x[torch.randperm(n, generator=gen)]


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam([p for p in params if p.requires_grad], lr=1e-4)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = make_moons(gen, COUNT)
    masks = torch.tensor([[0, 1], [1, 0]] * 3, dtype=torch.float32)
    spec = {
        "model": RealNVP(masks),
        "batch": (x, None),
        "loss_fn": flow_nll,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
