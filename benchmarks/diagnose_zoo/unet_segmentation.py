"""milesial/Pytorch-UNet's UNet (DoubleConv with BatchNorm, max-pool Down, bilinear Up with skip concatenation, 1x1 OutConv) at width 8, CrossEntropyLoss(ignore_index=255) on a void border as in Pascal VOC, Adam 1e-3."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import blob_scenes, normalise_images

NUM_CLASSES = 4
IMAGE_SIZE = 16
COUNT = 8
VOID = 255  # Pascal VOC marks object boundaries and unlabelled pixels 255


class DoubleConv(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, mid_channels: int | None = None):
        super().__init__()
        mid = mid_channels or out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
            nn.Conv2d(mid, out_channels, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)

    def forward(self, x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
        x1 = self.up(x1)
        diff_y, diff_x = x2.size(2) - x1.size(2), x2.size(3) - x1.size(3)
        x1 = F.pad(x1, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self, n_channels: int, n_classes: int, width: int = 8):
        super().__init__()
        self.inc = DoubleConv(n_channels, width)
        self.down1 = Down(width, 2 * width)
        self.down2 = Down(2 * width, 2 * width)  # bilinear: the deepest stage keeps its width (factor 2)
        self.up1 = Up(4 * width, width)
        self.up2 = Up(2 * width, width)
        self.outc = nn.Conv2d(width, n_classes, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.up1(x3, x2)
        x = self.up2(x, x1)
        return self.outc(x)  # (N, C, H, W) logits


criterion = nn.CrossEntropyLoss(ignore_index=VOID)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    images, masks = batch
    optimizer.zero_grad()
    loss = criterion(model(images), masks)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, masks = blob_scenes(gen, COUNT, NUM_CLASSES, IMAGE_SIZE)
    masks[:, 0, :] = masks[:, -1, :] = masks[:, :, 0] = masks[:, :, -1] = VOID  # an unlabelled border
    spec = {
        "model": UNet(3, NUM_CLASSES),
        "batch": (normalise_images(images), masks),
        "loss_fn": criterion,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "ignore_index": VOID,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
