"""facebookresearch/barlowtwins (Zbontar et al. 2021): ResNet backbone (fc removed) + projector (Linear(no bias)-BN1d-ReLU x2, Linear(no bias)), affine-free BatchNorm1d on both embeddings, cross-correlation c = bn(z1).T @ bn(z2) / B, loss = sum((diag(c)-1)^2) + 0.0051 * sum(offdiag(c)^2); its LARS (eta 0.001, momentum 0.9, wd 1.5e-6, biases/BN excluded from wd and adaptation, weights lr 0.2 and biases lr 0.0048 times batch/256); the two views are drawn on the device inside forward (as lucidrains/byol-pytorch does) instead of in the loader."""

from __future__ import annotations

import torch
from torch import nn

from ._views import MEAN, STD, BasicBlock, augment, make_images, off_diagonal

BATCH = 32
LAMBD = 0.0051
LR_WEIGHTS, LR_BIASES, WEIGHT_DECAY = 0.2, 0.0048, 1.5e-6


# ----------------------------------------------------------------------------- model
class ResNetBackbone(nn.Module):
    """A small torchvision-style ResNet (CIFAR stem: 3x3 conv, no max-pool; two stages of one BasicBlock),
    global average pooling, fc replaced by Identity as in the reference code."""

    def __init__(self, widths=(8, 16, 32)):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = BasicBlock(widths[0], widths[1], 2)
        self.layer2 = BasicBlock(widths[1], widths[2], 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Identity()
        self.out_dim = widths[2]
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class BarlowTwins(nn.Module):
    """forward(x) -> (bn(z1), bn(z2)), the affine-free batch-normalised projections of two views of x.
    In training mode the two views are drawn inside forward (augmentation on the device); in eval mode
    both views are the normalised image itself."""

    def __init__(self, projector_sizes=(32, 32, 32)):
        super().__init__()
        self.backbone = ResNetBackbone()
        sizes = [self.backbone.out_dim] + list(projector_sizes)
        layers = []
        for i in range(len(sizes) - 2):
            layers.append(nn.Linear(sizes[i], sizes[i + 1], bias=False))
            layers.append(nn.BatchNorm1d(sizes[i + 1]))
            layers.append(nn.ReLU(inplace=True))
        layers.append(nn.Linear(sizes[-2], sizes[-1], bias=False))
        self.projector = nn.Sequential(*layers)
        self.bn = nn.BatchNorm1d(sizes[-1], affine=False)  # normalization layer for the representations z1 and z2

    def forward(self, x):
        if self.training:
            y1, y2 = augment(x), augment(x)
        else:
            y1 = y2 = (x - MEAN) / STD
        z1 = self.projector(self.backbone(y1))
        z2 = self.projector(self.backbone(y2))
        return self.bn(z1), self.bn(z2)


def barlow_twins_loss(outputs, _targets=None) -> torch.Tensor:
    """Cross-correlation loss; couples all samples of the batch through c."""
    z1n, z2n = outputs
    c = z1n.T @ z2n
    c = c / z1n.size(0)  # the reference code: c.div_(batch_size), then all_reduce over GPUs
    on_diag = torch.diagonal(c).add(-1).pow(2).sum()
    off_diag = off_diagonal(c).pow(2).sum()
    return on_diag + LAMBD * off_diag


# ----------------------------------------------------------------------------- optimiser
class LARS(torch.optim.Optimizer):
    """The LARS of facebookresearch/barlowtwins main.py."""

    def __init__(self, params, lr, weight_decay=0, momentum=0.9, eta=0.001,
                 weight_decay_filter=False, lars_adaptation_filter=False):
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, eta=eta,
                        weight_decay_filter=weight_decay_filter, lars_adaptation_filter=lars_adaptation_filter)
        super().__init__(params, defaults)

    @staticmethod
    def exclude_bias_and_norm(p):
        return p.ndim == 1

    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                dp = p.grad
                if dp is None:
                    continue
                if not g["weight_decay_filter"] or not self.exclude_bias_and_norm(p):
                    dp = dp.add(p, alpha=g["weight_decay"])
                if not g["lars_adaptation_filter"] or not self.exclude_bias_and_norm(p):
                    param_norm = torch.norm(p)
                    update_norm = torch.norm(dp)
                    one = torch.ones_like(param_norm)
                    q = torch.where(param_norm > 0.0,
                                    torch.where(update_norm > 0, (g["eta"] * param_norm / update_norm), one), one)
                    dp = dp.mul(q)
                param_state = self.state[p]
                if "mu" not in param_state:
                    param_state["mu"] = torch.zeros_like(p)
                mu = param_state["mu"]
                mu.mul_(g["momentum"]).add_(dp)
                p.add_(mu, alpha=-g["lr"])


def make_optimizer(params) -> torch.optim.Optimizer:
    """param_weights / param_biases groups (by ndim, as the reference code), lr = base * batch/256 after warm-up."""
    params = [p for p in params if p.requires_grad]
    base = BATCH / 256
    groups = [{"params": [p for p in params if p.ndim != 1], "lr": LR_WEIGHTS * base},
              {"params": [p for p in params if p.ndim == 1], "lr": LR_BIASES * base}]
    return LARS(groups, lr=0, weight_decay=WEIGHT_DECAY, weight_decay_filter=True, lars_adaptation_filter=True)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = make_images(gen, BATCH)
    spec = {
        "model": BarlowTwins(),
        "batch": (images, labels),  # raw [0, 1] images; labels ride along as in the loader, the loss ignores them
        "loss_fn": barlow_twins_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
