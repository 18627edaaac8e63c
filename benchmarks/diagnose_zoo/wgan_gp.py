"""WGAN-GP (Gulrajani et al. 2017, Algorithm 1: lambda 10, n_critic 5, Adam lr 1e-4 betas (0.0, 0.9)) with the ReLU-MLP generator and critic (no normalisation in the critic) of igul222/improved_wgan_training gan_toy.py on its 8-Gaussians data; the gradient penalty on random real/fake interpolates uses create_graph=True."""

from __future__ import annotations

import math

import torch
from torch import autograd, nn

DIM = 128  # gan_toy.py uses 512
NOISE_DIM = 2
LAMBDA = 10.0
CRITIC_ITERS = 5
COUNT = 64


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(NOISE_DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, 2),
        )

    def forward(self, noise: torch.Tensor) -> torch.Tensor:
        return self.main(noise)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(2, DIM), nn.ReLU(True),
            nn.Linear(DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, DIM), nn.ReLU(True),
            nn.Linear(DIM, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.main(x).view(-1)


class WGANGP(nn.Module):
    """Both nets; forward(real, noise) -> the critic's scores on real and on generated points."""

    def __init__(self):
        super().__init__()
        self.netG = Generator()
        self.netD = Critic()

    def forward(self, real: torch.Tensor, noise: torch.Tensor):
        return self.netD(real), self.netD(self.netG(noise))


def eight_gaussians(gen: torch.Generator, n: int) -> torch.Tensor:
    """gan_toy.py's '8gaussians': centres at radius 2 on 8 directions, std 0.02, all divided by 1.414."""
    s = 1.0 / math.sqrt(2)
    centers = torch.tensor([(1, 0), (-1, 0), (0, 1), (0, -1), (s, s), (s, -s), (-s, s), (-s, -s)]) * 2.0
    idx = torch.randint(0, 8, (n,), generator=gen)
    points = centers[idx] + 0.02 * torch.randn(n, 2, generator=gen)
    return points / 1.414


def gradient_penalty(netD: nn.Module, real: torch.Tensor, fake: torch.Tensor) -> torch.Tensor:
    alpha = torch.rand(real.size(0), 1, device=real.device)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(
        outputs=disc_interpolates, inputs=interpolates,
        grad_outputs=torch.ones_like(disc_interpolates), create_graph=True, retain_graph=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def critic_loss(outputs, _targets=None) -> torch.Tensor:
    """The critic's Wasserstein term E[D(G(z))] - E[D(x)] (the penalty needs the points, see train_step)."""
    d_real, d_fake = outputs
    return d_fake.mean() - d_real.mean()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-4, betas=(0.0, 0.9))


def train_step(model: WGANGP, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (real, noise), _ = batch
    b = real.size(0)
    # (1) n_critic critic updates, each on fresh noise and fresh interpolation weights
    for _ in range(CRITIC_ITERS):
        optimizer.zero_grad(set_to_none=True)
        z = torch.randn(b, NOISE_DIM, device=real.device)
        with torch.no_grad():
            fake = model.netG(z)
        d_cost = model.netD(fake).mean() - model.netD(real).mean()
        disc_cost = d_cost + LAMBDA * gradient_penalty(model.netD, real, fake)
        disc_cost.backward()
        optimizer.step()  # only the critic has gradients; Adam skips parameters whose .grad is None
    # (2) one generator update: minimise -E[D(G(z))]
    optimizer.zero_grad(set_to_none=True)
    z = torch.randn(b, NOISE_DIM, device=real.device)
    gen_cost = -model.netD(model.netG(z)).mean()
    gen_cost.backward()
    for p in model.netD.parameters():
        p.grad = None  # this step moves the generator only
    optimizer.step()
    return disc_cost.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    real = eight_gaussians(gen, COUNT)
    noise = torch.randn(COUNT, NOISE_DIM, generator=gen)
    spec = {
        "model": WGANGP(),
        "batch": ((real, noise), None),
        "loss_fn": critic_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
