"""VAE with KL annealing (Bowman et al. 2016): pytorch/examples vae's MLP VAE (fc1-ReLU, fc21/fc22 -> mu/logvar, reparameterisation sampled in training mode, fc3-ReLU-fc4-sigmoid Bernoulli decoder, binary_cross_entropy summed over pixels and batch + beta * KLD, Adam lr 1e-3) with timbmg/Sentence-VAE's logistic KL-weight schedule 1/(1+exp(-k(step-x0))) (k 0.0025, x0 2500 there; k 0.0625, x0 100 here), the step counter kept in a module buffer and advanced by train_step."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

SIDE = 12
INPUT = SIDE * SIDE
HIDDEN = 128  # 400 in pytorch/examples
LATENT = 8  # 20
COUNT = 64
ANNEAL_K = 0.0625
ANNEAL_X0 = 100


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(INPUT, HIDDEN)
        self.fc21 = nn.Linear(HIDDEN, LATENT)
        self.fc22 = nn.Linear(HIDDEN, LATENT)
        self.fc3 = nn.Linear(LATENT, HIDDEN)
        self.fc4 = nn.Linear(HIDDEN, INPUT)
        self.register_buffer("step", torch.zeros((), dtype=torch.long))  # training steps taken, drives beta

    def encode(self, x: torch.Tensor):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return eps.mul(std).add_(mu)
        return mu

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def kl_weight(self) -> torch.Tensor:
        """Sentence-VAE's kl_anneal_function('logistic', step, k, x0)."""
        return 1.0 / (1.0 + torch.exp(-ANNEAL_K * (self.step.float() - ANNEAL_X0)))

    def forward(self, x: torch.Tensor):
        """-> (Bernoulli means, mu, logvar, current KL weight)."""
        mu, logvar = self.encode(x.view(-1, INPUT))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar, self.kl_weight()


def loss_function(outputs, x: torch.Tensor) -> torch.Tensor:
    """Reconstruction + beta * KL divergence, summed over all elements and the batch (pytorch/examples)."""
    recon_x, mu, logvar, beta = outputs
    bce = F.binary_cross_entropy(recon_x, x.view(-1, INPUT), reduction="sum")
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2), Kingma and Welling 2014, appendix B
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + beta * kld


def train_step(model: VAE, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    data, target = batch
    optimizer.zero_grad()
    loss = loss_function(model(data), target)
    loss.backward()
    optimizer.step()
    model.step += 1  # advance the annealing schedule
    return loss.detach()


def make_shapes(gen: torch.Generator, n: int) -> torch.Tensor:
    """Binary 12x12 images (stand-in for binarised MNIST): one or two random axis-aligned rectangles, filled
    or outlined, each pixel then flipped with probability 0.02; shape (n, 1, 12, 12) with values in {0, 1}."""
    img = torch.zeros(n, SIDE, SIDE)
    for i in range(n):
        for _ in range(1 + int(torch.randint(0, 2, (1,), generator=gen))):
            h, w = (int(v) for v in torch.randint(3, 8, (2,), generator=gen))
            r = int(torch.randint(0, SIDE - h + 1, (1,), generator=gen))
            c = int(torch.randint(0, SIDE - w + 1, (1,), generator=gen))
            if bool(torch.rand(1, generator=gen) < 0.5):
                img[i, r:r + h, c:c + w] = 1.0
            else:
                img[i, r, c:c + w] = 1.0
                img[i, r + h - 1, c:c + w] = 1.0
                img[i, r:r + h, c] = 1.0
                img[i, r:r + h, c + w - 1] = 1.0
    flip = torch.rand(img.shape, generator=gen) < 0.02
    img = torch.where(flip, 1.0 - img, img)
    return img.unsqueeze(1)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    data = make_shapes(gen, COUNT)
    spec = {
        "model": VAE(),
        "batch": (data, data),
        "loss_fn": loss_function,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
