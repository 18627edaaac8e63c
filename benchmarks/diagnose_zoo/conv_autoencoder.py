"""The classic convolutional autoencoder of the PyTorch tutorials (strided Conv2d-ReLU encoder, ConvTranspose2d decoder ending in Sigmoid, MSELoss against [0, 1] images), Adam 1e-3 with weight decay 1e-5."""

from __future__ import annotations

import torch
from torch import nn

from ._data import template_images

IMAGE_SIZE = 16
COUNT = 32


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(True),  # 16 -> 8
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(True),  # 8 -> 4
            nn.Conv2d(16, 16, 4),  # 4 -> 1: the code
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(16, 16, 4), nn.ReLU(True),  # 1 -> 4
            nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1), nn.ReLU(True),  # 4 -> 8
            nn.ConvTranspose2d(8, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid(),  # 8 -> 16
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(x))


criterion = nn.MSELoss()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3, weight_decay=1e-5)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    img, target = batch
    output = model(img)
    loss = criterion(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, _ = template_images(gen, 8, 1, IMAGE_SIZE, COUNT // 8, noise=0.05)
    spec = {
        "model": ConvAutoencoder(),
        "batch": (images, images.clone()),  # reconstruct the input
        "loss_fn": criterion,
        "task": "regression",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
