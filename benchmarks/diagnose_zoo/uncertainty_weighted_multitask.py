"""Kendall, Gal & Cipolla 2018 (Multi-Task Learning Using Uncertainty to Weigh Losses), eq. 7/10 as in yaringal/multi-task-learning-example: a shared conv encoder with one decoder per task (per-pixel semantic segmentation and per-pixel inverse-depth regression), learnable log-variances s_i = log sigma_i^2 as model parameters, loss = 0.5*exp(-s_1)*MSE_depth + 0.5*s_1 + exp(-s_2)*CE_seg + 0.5*s_2; Adam lr 1e-3 (the example's Keras 'adam')."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 4  # background + 3 object classes
IMG = 16
BATCH = 32
COLOURS = torch.tensor([[0.55, 0.5, 0.45],   # background (floor/wall)
                        [0.9, 0.2, 0.2],     # class 1
                        [0.2, 0.85, 0.25],   # class 2
                        [0.25, 0.3, 0.9]])   # class 3


def make_scenes(gen: torch.Generator, n: int):
    """Synthetic scenes: a background whose depth grows towards the top of the image, plus two rectangles
    (objects of classes 1-3) at random places and depths; shading falls with depth (brightness ~ 1/depth)."""
    rows = torch.arange(IMG).float().view(1, IMG, 1).expand(n, IMG, IMG)
    cols = torch.arange(IMG).float().view(1, 1, IMG).expand(n, IMG, IMG)
    depth = 2.0 + 4.0 * (IMG - 1 - rows) / (IMG - 1)  # 2 (bottom) to 6 (top)
    seg = torch.zeros(n, IMG, IMG, dtype=torch.long)
    for _ in range(2):
        cls = torch.randint(1, NUM_CLASSES, (n,), generator=gen)
        h = torch.randint(4, 9, (n,), generator=gen)
        w = torch.randint(4, 9, (n,), generator=gen)
        y0 = (torch.rand(n, generator=gen) * (IMG - h)).long()
        x0 = (torch.rand(n, generator=gen) * (IMG - w)).long()
        d = 1.0 + 2.5 * torch.rand(n, generator=gen)
        inside = ((rows >= y0.view(-1, 1, 1)) & (rows < (y0 + h).view(-1, 1, 1))
                  & (cols >= x0.view(-1, 1, 1)) & (cols < (x0 + w).view(-1, 1, 1)))
        seg = torch.where(inside, cls.view(-1, 1, 1), seg)
        depth = torch.where(inside, d.view(-1, 1, 1).expand(n, IMG, IMG), depth)
    colour = COLOURS[seg].permute(0, 3, 1, 2)  # (n, 3, H, W)
    colour = colour * (0.85 + 0.3 * torch.rand(n, 3, 1, 1, generator=gen))  # per-image white balance
    shade = 2.0 / depth.unsqueeze(1)
    image = (colour * shade + 0.04 * torch.randn(n, 3, IMG, IMG, generator=gen)).clamp(0, 1)
    image = (image - 0.5) / 0.25
    inverse_depth = 1.0 / depth  # the regression target, as the paper's disparity (inverse depth)
    return image, seg, inverse_depth.unsqueeze(1)


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class MultiTaskNet(nn.Module):
    """Shared encoder (two conv stages with max-pooling, then bilinear upsampling back to full resolution with a
    skip), a 3x3-conv + 1x1-conv decoder per task, and the two homoscedastic log-variances."""

    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(conv_bn_relu(3, 8), conv_bn_relu(8, 8))
        self.enc2 = nn.Sequential(conv_bn_relu(8, 16), conv_bn_relu(16, 16))
        self.enc3 = nn.Sequential(conv_bn_relu(16, 32), conv_bn_relu(32, 32))
        self.fuse = conv_bn_relu(32 + 8, 16)
        self.seg_decoder = nn.Sequential(conv_bn_relu(16, 16), nn.Conv2d(16, NUM_CLASSES, 1))
        self.depth_decoder = nn.Sequential(conv_bn_relu(16, 16), nn.Conv2d(16, 1, 1))
        self.log_vars = nn.Parameter(torch.zeros(2))  # s_depth, s_seg = log sigma^2, initialised at sigma = 1

    def forward(self, x):
        f1 = self.enc1(x)                                  # 16 x 16
        f2 = self.enc2(F.max_pool2d(f1, 2))                # 8 x 8
        f3 = self.enc3(F.max_pool2d(f2, 2))                # 4 x 4
        up = F.interpolate(f3, size=f1.shape[-2:], mode="bilinear", align_corners=False)
        f = self.fuse(torch.cat([up, f1], 1))
        return self.seg_decoder(f), self.depth_decoder(f), self.log_vars


def uncertainty_weighted_loss(outputs, targets) -> torch.Tensor:
    """1/(2 sigma_1^2) L_1 + 1/sigma_2^2 L_2 + log sigma_1 + log sigma_2 with s_i = log sigma_i^2.
    The loss can go below zero once the learned variances shrink."""
    seg_logits, depth_pred, log_vars = outputs
    seg_target, depth_target = targets
    loss_depth = F.mse_loss(depth_pred, depth_target)       # Gaussian likelihood (regression, inverse depth)
    loss_seg = F.cross_entropy(seg_logits, seg_target)      # softmax likelihood (classification)
    s_depth, s_seg = log_vars[0], log_vars[1]
    return 0.5 * torch.exp(-s_depth) * loss_depth + 0.5 * s_depth + torch.exp(-s_seg) * loss_seg + 0.5 * s_seg


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    image, seg, depth = make_scenes(gen, BATCH)
    spec = {
        "model": MultiTaskNet(),
        "batch": (image, (seg, depth)),
        "loss_fn": uncertainty_weighted_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
