"""pytorch/examples/dcgan's Generator (ConvTranspose2d-BN-ReLU, Tanh) and Discriminator (Conv2d-LeakyReLU(0.2)-BN, Sigmoid) with its weights_init, BCELoss and Adam 2e-4 betas (0.5, 0.999); one train_step alternates the D and G updates with a single optimizer over both nets."""

from __future__ import annotations

import torch
from torch import nn

from ._data import template_images

NZ, NGF, NDF, NC = 8, 8, 8, 1
IMAGE_SIZE = 8
COUNT = 16
REAL_LABEL, FAKE_LABEL = 1.0, 0.0


def weights_init(m: nn.Module) -> None:
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(NZ, NGF * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),  # 4x4
            nn.ConvTranspose2d(NGF * 2, NC, 4, 2, 1, bias=False), nn.Tanh(),  # 8x8
        )

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(NC, NDF, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),  # 4x4
            nn.Conv2d(NDF, NDF * 2, 3, 1, 1, bias=False), nn.BatchNorm2d(NDF * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(NDF * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid(),  # 1x1
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.main(x).view(-1, 1).squeeze(1)


class DCGAN(nn.Module):
    """Both nets; forward(real, noise) -> the discriminator's probabilities on real and on generated images."""

    def __init__(self):
        super().__init__()
        self.netG = Generator()
        self.netD = Discriminator()
        self.apply(weights_init)

    def forward(self, real: torch.Tensor, noise: torch.Tensor):
        return self.netD(real), self.netD(self.netG(noise))


criterion = nn.BCELoss()


def discriminator_loss(outputs, _targets=None) -> torch.Tensor:
    """log(D(x)) + log(1 - D(G(z))), as BCE against real and fake labels."""
    d_real, d_fake = outputs
    return criterion(d_real, torch.full_like(d_real, REAL_LABEL)) + criterion(d_fake, torch.full_like(d_fake, FAKE_LABEL))


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=0.0002, betas=(0.5, 0.999))


def train_step(model: DCGAN, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    (real, _), _ = batch
    b = real.size(0)
    noise = torch.randn(b, NZ, 1, 1, device=real.device)
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    optimizer.zero_grad(set_to_none=True)
    fake = model.netG(noise)
    output_real = model.netD(real)
    errD = criterion(output_real, torch.full((b,), REAL_LABEL)) + criterion(model.netD(fake.detach()), torch.full((b,), FAKE_LABEL))
    errD.backward()
    optimizer.step()  # only D has gradients; Adam skips parameters whose .grad is None
    # (2) Update G network: maximize log(D(G(z)))
    optimizer.zero_grad(set_to_none=True)
    errG = criterion(model.netD(fake), torch.full((b,), REAL_LABEL))  # fake labels are real for generator cost
    errG.backward()
    for p in model.netD.parameters():
        p.grad = None  # this step moves G only
    optimizer.step()
    return errD.detach() + errG.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, _ = template_images(gen, 4, NC, IMAGE_SIZE, COUNT // 4, noise=0.05)
    real = images * 2 - 1  # Normalize((0.5,), (0.5,)): [-1, 1] like the generator's Tanh
    noise = torch.randn(COUNT, NZ, 1, 1, generator=gen)
    spec = {
        "model": DCGAN(),
        "batch": ((real, noise), None),
        "loss_fn": discriminator_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
