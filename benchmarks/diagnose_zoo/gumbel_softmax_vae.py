"""ericjang/gumbel-softmax (Jang et al. 2017) categorical VAE notebook: MLP encoder (ReLU 512-256, here 256-128) to N x K logits, a relaxed one-hot sample per latent from gumbel_softmax(logits, tau, hard=False), MLP decoder to Bernoulli logits, loss = mean(-ELBO) = sum-over-pixels BCE + KL(q(y|x) || uniform 1/K) summed over latents; Adam lr 1e-3, tau0 1.0 annealed as max(0.5, exp(-3e-5 i)) and lr *= 0.9 every 1000 steps (at i % 1000 == 1)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

SIDE = 12
N, K = 8, 10           # latent categorical variables, categories each
BATCH = 64
TAU0, ANNEAL_RATE, MIN_TEMP = 1.0, 0.00003, 0.5
ROWS, COLS, WIDTH = (0, 3, 6, 9), (1, 4, 7, 10), 2


def make_strokes(gen: torch.Generator, n: int) -> torch.Tensor:
    """Binary 12x12 images: one horizontal and one vertical 2-pixel stroke chosen among four each, 5% pixel flips."""
    h = torch.randint(0, 4, (n,), generator=gen)
    v = torch.randint(0, 4, (n,), generator=gen)
    img = torch.zeros(n, SIDE, SIDE)
    for w in range(WIDTH):
        img[torch.arange(n), torch.tensor(ROWS)[h] + w, :] = 1
        img[torch.arange(n), :, torch.tensor(COLS)[v] + w] = 1
    flip = torch.rand(n, SIDE, SIDE, generator=gen) < 0.05
    img = torch.where(flip, 1 - img, img)
    return img.view(n, SIDE * SIDE)


def sample_gumbel(shape, eps=1e-20):
    U = torch.rand(shape)
    return -torch.log(-torch.log(U + eps) + eps)


def gumbel_softmax_sample(logits, temperature):
    y = logits + sample_gumbel(logits.shape)
    return F.softmax(y / temperature, dim=-1)


def gumbel_softmax(logits, temperature, hard=False):
    y = gumbel_softmax_sample(logits, temperature)
    if hard:
        y_hard = F.one_hot(y.argmax(-1), y.size(-1)).to(y.dtype)
        y = (y_hard - y).detach() + y
    return y


class CategoricalVAE(nn.Module):
    """forward(x) -> (logits_x, logits_y): Bernoulli logits of the reconstruction and the (B, N, K) posterior
    logits. A Gumbel-softmax sample is drawn inside forward (in both modes, as in the notebook)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(SIDE * SIDE, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                                     nn.Linear(128, N * K))
        self.decoder = nn.Sequential(nn.Linear(N * K, 128), nn.ReLU(), nn.Linear(128, 256), nn.ReLU(),
                                     nn.Linear(256, SIDE * SIDE))
        self.tau = TAU0
        self.step = 0

    def forward(self, x):
        logits_y = self.encoder(x).view(-1, N, K)
        y = gumbel_softmax(logits_y, self.tau, hard=False)
        logits_x = self.decoder(y.view(-1, N * K))
        return logits_x, logits_y


def neg_elbo(outputs, x) -> torch.Tensor:
    logits_x, logits_y = outputs
    q_y = F.softmax(logits_y, dim=-1)
    log_q_y = torch.log(q_y + 1e-20)
    KL = (q_y * (log_q_y - math.log(1.0 / K))).sum(dim=(1, 2))
    log_px = -F.binary_cross_entropy_with_logits(logits_x, x, reduction="none").sum(1)
    elbo = log_px - KL
    return (-elbo).mean()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def train_step(model: CategoricalVAE, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    """One notebook iteration: an Adam step on mean(-ELBO) at the current tau, then the schedule."""
    x, target = batch
    optimizer.zero_grad()
    loss = neg_elbo(model(x), target)
    loss.backward()
    optimizer.step()
    model.step += 1
    i = model.step
    if i % 1000 == 1:
        model.tau = max(TAU0 * math.exp(-ANNEAL_RATE * i), MIN_TEMP)
        for g in optimizer.param_groups:
            g["lr"] *= 0.9
    return loss.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x = make_strokes(gen, BATCH)
    spec = {
        "model": CategoricalVAE(),
        "batch": (x, x),
        "loss_fn": neg_elbo,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
