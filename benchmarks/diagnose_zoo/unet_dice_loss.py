"""milesial/Pytorch-UNet: UNet (DoubleConv conv3x3-BN-ReLU x2, MaxPool down, ConvTranspose2d up with pad+concat skips, 1x1 OutConv), n_classes=1 trained with BCEWithLogitsLoss + dice_loss(sigmoid) (soft Dice summed over the whole batch, reduce_batch_first=True, eps 1e-6), RMSprop (wd 1e-8, momentum 0.999) lr 1e-5 with grad-norm clipping 1.0."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

IMAGE = 20
COUNT = 16
BASE = 6


class DoubleConv(nn.Module):
    """(convolution => [BN] => ReLU) * 2"""

    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class UNet(nn.Module):
    """Three resolution levels instead of five, base width 6 instead of 64."""

    def __init__(self, n_channels=1, n_classes=1):
        super().__init__()
        self.n_channels, self.n_classes = n_channels, n_classes
        self.inc = DoubleConv(n_channels, BASE)
        self.down1 = Down(BASE, BASE * 2)
        self.down2 = Down(BASE * 2, BASE * 4)
        self.up1 = Up(BASE * 4, BASE * 2)
        self.up2 = Up(BASE * 2, BASE)
        self.outc = nn.Conv2d(BASE, n_classes, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.up1(x3, x2)
        x = self.up2(x, x1)
        return self.outc(x)


def dice_coeff(input, target, reduce_batch_first: bool = False, epsilon: float = 1e-6):
    # Average of Dice coefficient for all batches, or for a single mask
    assert input.size() == target.size()
    assert input.dim() == 3 or not reduce_batch_first
    sum_dim = (-1, -2) if input.dim() == 2 or not reduce_batch_first else (-1, -2, -3)
    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)
    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


def dice_loss(input, target):
    return 1 - dice_coeff(input, target, reduce_batch_first=True)


criterion = nn.BCEWithLogitsLoss()


def bce_dice_loss(masks_pred, true_masks):
    """train.py, n_classes == 1: criterion(pred.squeeze(1), mask) + dice_loss(sigmoid(pred.squeeze(1)), mask)."""
    loss = criterion(masks_pred.squeeze(1), true_masks.float())
    loss = loss + dice_loss(F.sigmoid(masks_pred.squeeze(1)), true_masks.float())
    return loss


def train_step(model, batch, optimizer):
    images, true_masks = batch
    masks_pred = model(images)
    loss = bce_dice_loss(masks_pred, true_masks)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss


def make_data(gen: torch.Generator, count: int = COUNT):
    """Noisy images holding bright discs (foreground) and equally bright squares (background distractors)."""
    yy, xx = torch.meshgrid(torch.arange(IMAGE).float(), torch.arange(IMAGE).float(), indexing="ij")
    images = 0.15 * torch.randn(count, 1, IMAGE, IMAGE, generator=gen)
    masks = torch.zeros(count, IMAGE, IMAGE, dtype=torch.long)
    for n in range(count):
        for _ in range(int(torch.randint(1, 4, (1,), generator=gen))):
            r = 2.5 + 3 * float(torch.rand(1, generator=gen))
            cx, cy = (r + (IMAGE - 2 * r) * torch.rand(2, generator=gen)).tolist()
            disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
            images[n, 0][disc] += 1.0
            masks[n][disc] = 1
        for _ in range(int(torch.randint(0, 3, (1,), generator=gen))):
            s = int(torch.randint(4, 9, (1,), generator=gen))
            x0, y0 = torch.randint(0, IMAGE - s, (2,), generator=gen).tolist()
            square = torch.zeros(IMAGE, IMAGE, dtype=torch.bool)
            square[y0:y0 + s, x0:x0 + s] = True
            square &= masks[n] == 0
            images[n, 0][square] += 1.0
    return images, masks


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, masks = make_data(gen)
    spec = {
        "model": UNet(n_channels=1, n_classes=1),
        "batch": (images, masks),
        "loss_fn": bce_dice_loss,
        "task": "binary",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.RMSprop(params, lr=1e-5, weight_decay=1e-8, momentum=0.999, foreach=True)
    return spec
