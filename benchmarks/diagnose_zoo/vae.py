"""pytorch/examples/vae's VAE (fc1-relu, fc21/fc22 for mu and logvar, reparameterize, fc3-relu, fc4-sigmoid; BCE summed plus KL divergence; Adam 1e-3) on 8x8 images, sampling only in training mode (the mean at evaluation)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import template_images

PIXELS = 64  # the example's 784 (28x28)
HIDDEN, LATENT = 48, 8  # the example's 400, 20
COUNT = 32


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(PIXELS, HIDDEN)
        self.fc21 = nn.Linear(HIDDEN, LATENT)
        self.fc22 = nn.Linear(HIDDEN, LATENT)
        self.fc3 = nn.Linear(LATENT, HIDDEN)
        self.fc4 = nn.Linear(HIDDEN, PIXELS)

    def encode(self, x: torch.Tensor):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return mu
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x: torch.Tensor):
        mu, logvar = self.encode(x.view(-1, PIXELS))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(outputs, x: torch.Tensor) -> torch.Tensor:
    """Reconstruction + KL divergence losses summed over all elements and batch."""
    recon_x, mu, logvar = outputs
    bce = F.binary_cross_entropy(recon_x, x.view(-1, PIXELS), reduction="sum")
    # see Appendix B from VAE paper: Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    data, target = batch
    optimizer.zero_grad()
    loss = loss_function(model(data), target)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, _ = template_images(gen, 8, 1, 8, COUNT // 8, noise=0.1)
    data = (images > 0.5).float().view(COUNT, PIXELS)  # binarised, as MNIST digits nearly are
    spec = {
        "model": VAE(),
        "batch": (data, data.clone()),  # the target is the input
        "loss_fn": loss_function,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
