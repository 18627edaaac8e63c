"""SN-GAN (Miyato et al. 2018): the paper's "standard CNN" as coded in christiancosgrove/pytorch-spectral-normalization-gan (spectrally normalised Conv3x3/Conv4x4-stride-2 stack with LeakyReLU(0.1) and a spectrally normalised linear head; ConvTranspose-BN-ReLU generator ending in Tanh) with its hinge loss, trained with the paper's setting C (Adam lr 2e-4 betas (0.5, 0.999), n_dis=1: one discriminator step, then one generator step)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.parametrizations import spectral_norm

Z_DIM = 16  # the repo uses 128
CHANNELS = 1
IMAGE_SIZE = 8
W_G = 2  # spatial size left before the linear head (4 for 32x32 in the repo)
LEAK = 0.1
G_CH = 8  # 64 in the repo (its widths go 512-256-128-64)
D_CH = 8  # 64 in the repo (64-64-128-128-256-256-512)
DISC_ITERS = 1  # the paper's setting C; the repo's default is 5 with betas (0.0, 0.9)
COUNT = 32


class Generator(nn.Module):
    def __init__(self, z_dim: int = Z_DIM):
        super().__init__()
        self.z_dim = z_dim
        self.model = nn.Sequential(
            nn.ConvTranspose2d(z_dim, 4 * G_CH, W_G, stride=1), nn.BatchNorm2d(4 * G_CH), nn.ReLU(),  # 2x2
            nn.ConvTranspose2d(4 * G_CH, 2 * G_CH, 4, stride=2, padding=(1, 1)), nn.BatchNorm2d(2 * G_CH), nn.ReLU(),  # 4x4
            nn.ConvTranspose2d(2 * G_CH, G_CH, 4, stride=2, padding=(1, 1)), nn.BatchNorm2d(G_CH), nn.ReLU(),  # 8x8
            nn.ConvTranspose2d(G_CH, CHANNELS, 3, stride=1, padding=(1, 1)), nn.Tanh(),
        )

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.model(z.view(-1, self.z_dim, 1, 1))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = spectral_norm(nn.Conv2d(CHANNELS, D_CH, 3, stride=1, padding=(1, 1)))
        self.conv2 = spectral_norm(nn.Conv2d(D_CH, D_CH, 4, stride=2, padding=(1, 1)))  # 4x4
        self.conv3 = spectral_norm(nn.Conv2d(D_CH, 2 * D_CH, 3, stride=1, padding=(1, 1)))
        self.conv4 = spectral_norm(nn.Conv2d(2 * D_CH, 2 * D_CH, 4, stride=2, padding=(1, 1)))  # 2x2
        self.conv5 = spectral_norm(nn.Conv2d(2 * D_CH, 4 * D_CH, 3, stride=1, padding=(1, 1)))
        self.fc = spectral_norm(nn.Linear(W_G * W_G * 4 * D_CH, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        m = x
        m = nn.LeakyReLU(LEAK)(self.conv1(m))
        m = nn.LeakyReLU(LEAK)(self.conv2(m))
        m = nn.LeakyReLU(LEAK)(self.conv3(m))
        m = nn.LeakyReLU(LEAK)(self.conv4(m))
        m = nn.LeakyReLU(LEAK)(self.conv5(m))
        return self.fc(m.view(-1, W_G * W_G * 4 * D_CH))


class SNGAN(nn.Module):
    """Both nets; forward(real, z) -> the discriminator's raw scores (B, 1) on real and on generated images."""

    def __init__(self):
        super().__init__()
        self.generator = Generator()
        self.discriminator = Discriminator()

    def forward(self, real: torch.Tensor, z: torch.Tensor):
        return self.discriminator(real), self.discriminator(self.generator(z))


def make_images(gen: torch.Generator, n: int) -> torch.Tensor:
    """8x8 grey images: one bright 2-pixel-wide bar (one of 4 orientations/positions) with a random
    intensity, on a faintly noisy background, scaled to [-1, 1] like Normalize((0.5,), (0.5,))."""
    kind = torch.randint(0, 4, (n,), generator=gen)
    pos = torch.randint(1, IMAGE_SIZE - 2, (n,), generator=gen)
    img = torch.zeros(n, 1, IMAGE_SIZE, IMAGE_SIZE)
    for i in range(n):
        k, p = int(kind[i]), int(pos[i])
        if k == 0:
            img[i, 0, p:p + 2, :] = 1.0  # horizontal bar
        elif k == 1:
            img[i, 0, :, p:p + 2] = 1.0  # vertical bar
        elif k == 2:
            idx = torch.arange(IMAGE_SIZE)
            img[i, 0, idx, idx] = 1.0  # diagonal
            img[i, 0, idx[:-1], idx[1:]] = 1.0
        else:
            idx = torch.arange(IMAGE_SIZE)
            img[i, 0, idx, IMAGE_SIZE - 1 - idx] = 1.0  # anti-diagonal
            img[i, 0, idx[1:], IMAGE_SIZE - 1 - idx[1:] + 1] = 1.0
    img = img * (0.7 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen))
    img = (img + 0.05 * torch.rand(img.shape, generator=gen)).clamp(0, 1)
    return img * 2 - 1


def discriminator_hinge_loss(outputs, _targets=None) -> torch.Tensor:
    d_real, d_fake = outputs
    return nn.ReLU()(1.0 - d_real).mean() + nn.ReLU()(1.0 + d_fake).mean()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=2e-4, betas=(0.5, 0.999))


def train_step(model: SNGAN, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (data, _z), _ = batch
    b = data.size(0)
    # update the discriminator (disc_iters times in the repo) on the real batch and fresh z
    for _ in range(DISC_ITERS):
        z = torch.randn(b, Z_DIM, device=data.device)
        optimizer.zero_grad(set_to_none=True)
        with torch.no_grad():
            fake = model.generator(z)
        disc_loss = nn.ReLU()(1.0 - model.discriminator(data)).mean() + nn.ReLU()(1.0 + model.discriminator(fake)).mean()
        disc_loss.backward()
        optimizer.step()  # only the discriminator has gradients
    # update generator
    z = torch.randn(b, Z_DIM, device=data.device)
    optimizer.zero_grad(set_to_none=True)
    gen_loss = -model.discriminator(model.generator(z)).mean()
    gen_loss.backward()
    for p in model.discriminator.parameters():
        p.grad = None  # this step moves the generator only
    optimizer.step()
    return disc_loss.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    data = make_images(gen, COUNT)
    z = torch.randn(COUNT, Z_DIM, generator=gen)
    spec = {
        "model": SNGAN(),
        "batch": ((data, z), None),
        "loss_fn": discriminator_hinge_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
