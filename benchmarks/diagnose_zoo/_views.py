"""What three self-supervised zoo setups (barlow_twins, vicreg, byol_ema_target) share, written once: the
synthetic coloured-shape images, the two-view augmentation drawn on the device, torchvision's BasicBlock and
the off-diagonal of a square matrix."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 4  # the shape classes of the synthetic images (not used by the losses; for probing only)
IMG = 12
MEAN = torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1)
STD = torch.tensor([0.25, 0.25, 0.25]).view(1, 3, 1, 1)


def make_images(gen: torch.Generator, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Coloured shapes (disk, square, ring, cross) at random positions/sizes/colours, values in [0, 1]."""
    labels = torch.arange(n) % NUM_CLASSES
    labels = labels[torch.randperm(n, generator=gen)]
    yy, xx = torch.meshgrid(torch.arange(IMG).float(), torch.arange(IMG).float(), indexing="ij")
    cy = IMG / 2 - 0.5 + (torch.rand(n, generator=gen) * 3 - 1.5)
    cx = IMG / 2 - 0.5 + (torch.rand(n, generator=gen) * 3 - 1.5)
    r = 2.8 + 1.5 * torch.rand(n, generator=gen)
    dy, dx = yy - cy.view(-1, 1, 1), xx - cx.view(-1, 1, 1)
    rr, d2 = r.view(-1, 1, 1), dy**2 + dx**2
    disk = d2 <= rr**2
    square = (dy.abs() <= 0.8 * rr) & (dx.abs() <= 0.8 * rr)
    ring = disk & (d2 >= (rr - 1.6) ** 2)
    cross = ((dy.abs() <= 1) & (dx.abs() <= rr)) | ((dx.abs() <= 1) & (dy.abs() <= rr))
    masks = torch.stack([disk, square, ring, cross], 1)[torch.arange(n), labels].float().unsqueeze(1)
    bg = torch.rand(n, 3, 1, 1, generator=gen) * 0.5
    fg = bg + 0.3 + 0.2 * torch.rand(n, 3, 1, 1, generator=gen)
    img = bg * (1 - masks) + fg * masks + 0.03 * torch.randn(n, 3, IMG, IMG, generator=gen)
    return img.clamp(0, 1), labels


def augment(img: torch.Tensor) -> torch.Tensor:
    """One random view per image, made on the device from the global RNG: random resized crop
    (scale 0.6-1, shift) with horizontal flip via affine_grid, colour jitter (brightness, contrast,
    per-channel), random grayscale (p 0.2), gaussian noise; then Normalize."""
    n = img.size(0)
    scale = 0.6 + 0.4 * torch.rand(n)
    flip = torch.where(torch.rand(n) < 0.5, -1.0, 1.0)
    shift = (2 * torch.rand(n, 2) - 1) * (1 - scale).unsqueeze(1)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = scale * flip
    theta[:, 1, 1] = scale
    theta[:, :, 2] = shift
    grid = F.affine_grid(theta, list(img.shape), align_corners=False)
    out = F.grid_sample(img, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
    bright = 1 + 0.4 * (2 * torch.rand(n, 1, 1, 1) - 1)
    contrast = 1 + 0.4 * (2 * torch.rand(n, 1, 1, 1) - 1)
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    out = ((out * bright - mean) * contrast + mean) * (1 + 0.2 * (2 * torch.rand(n, 3, 1, 1) - 1))
    gray = torch.rand(n, 1, 1, 1) < 0.2
    out = torch.where(gray, out.mean(1, keepdim=True).expand_as(out), out)
    out = (out + 0.05 * torch.randn(out.shape)).clamp(0, 1)
    return (out - MEAN) / STD


class BasicBlock(nn.Module):
    """torchvision ResNet BasicBlock."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


def off_diagonal(x: torch.Tensor) -> torch.Tensor:
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()
