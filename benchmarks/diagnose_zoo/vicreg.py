"""facebookresearch/vicreg (Bardes et al. 2022): ResNet backbone (zero_init_residual=True, fc removed) + Projector (Linear-BN1d-ReLU x2, Linear(no bias)), loss = 25 * MSE(z1, z2) + 25 * mean(relu(1 - sqrt(var + 1e-4)))/2 per branch + 1 * sum(offdiag(cov)^2)/D per branch; its LARS (eta 0.001, momentum 0.9, wd 1e-6, biases/BN excluded from wd and adaptation), lr = 0.2 * batch/256 after warm-up; the two views are drawn on the device inside forward instead of in the loader."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._views import MEAN, STD, BasicBlock, augment, make_images, off_diagonal

BATCH = 32
MLP = "32-32-32"
SIM_COEFF, STD_COEFF, COV_COEFF = 25.0, 25.0, 1.0
BASE_LR, WEIGHT_DECAY = 0.2, 1e-6


# ----------------------------------------------------------------------------- model
class ResNetBackbone(nn.Module):
    """A small torchvision-style ResNet (CIFAR stem: 3x3 conv, no max-pool; two stages of one BasicBlock),
    global average pooling, fc replaced by Identity as in the reference code."""

    def __init__(self, widths=(8, 16, 32), zero_init_residual: bool = True):
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
        if zero_init_residual:  # the last BN of each residual branch starts at zero: each block starts as identity
            for m in self.modules():
                if isinstance(m, BasicBlock):
                    nn.init.constant_(m.bn2.weight, 0)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def Projector(embedding: int) -> nn.Sequential:
    mlp_spec = f"{embedding}-{MLP}"
    layers = []
    f = list(map(int, mlp_spec.split("-")))
    for i in range(len(f) - 2):
        layers.append(nn.Linear(f[i], f[i + 1]))
        layers.append(nn.BatchNorm1d(f[i + 1]))
        layers.append(nn.ReLU(True))
    layers.append(nn.Linear(f[-2], f[-1], bias=False))
    return nn.Sequential(*layers)


class VICReg(nn.Module):
    """forward(x) -> (z1, z2), the projections of two views of x. In training mode the two views are drawn
    inside forward (augmentation on the device); in eval mode both views are the normalised image itself."""

    def __init__(self):
        super().__init__()
        self.num_features = int(MLP.split("-")[-1])
        self.backbone = ResNetBackbone(zero_init_residual=True)
        self.projector = Projector(self.backbone.out_dim)

    def forward(self, x):
        if self.training:
            y1, y2 = augment(x), augment(x)
        else:
            y1 = y2 = (x - MEAN) / STD
        return self.projector(self.backbone(y1)), self.projector(self.backbone(y2))


def vicreg_loss(outputs, _targets=None) -> torch.Tensor:
    """Invariance + variance (hinge on each dimension's std over the batch) + covariance; the last two couple
    the samples of the batch."""
    x, y = outputs
    batch_size, num_features = x.shape
    repr_loss = F.mse_loss(x, y)
    x = x - x.mean(dim=0)
    y = y - y.mean(dim=0)
    std_x = torch.sqrt(x.var(dim=0) + 0.0001)
    std_y = torch.sqrt(y.var(dim=0) + 0.0001)
    std_loss = torch.mean(F.relu(1 - std_x)) / 2 + torch.mean(F.relu(1 - std_y)) / 2
    cov_x = (x.T @ x) / (batch_size - 1)
    cov_y = (y.T @ y) / (batch_size - 1)
    cov_loss = off_diagonal(cov_x).pow(2).sum().div(num_features) + off_diagonal(cov_y).pow(2).sum().div(num_features)
    return SIM_COEFF * repr_loss + STD_COEFF * std_loss + COV_COEFF * cov_loss


# ----------------------------------------------------------------------------- optimiser
def exclude_bias_and_norm(p):
    return p.ndim == 1


class LARS(torch.optim.Optimizer):
    """The LARS of facebookresearch/vicreg main_vicreg.py (filters are functions of the parameter)."""

    def __init__(self, params, lr, weight_decay=0, momentum=0.9, eta=0.001,
                 weight_decay_filter=None, lars_adaptation_filter=None):
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, eta=eta,
                        weight_decay_filter=weight_decay_filter, lars_adaptation_filter=lars_adaptation_filter)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                dp = p.grad
                if dp is None:
                    continue
                if g["weight_decay_filter"] is None or not g["weight_decay_filter"](p):
                    dp = dp.add(p, alpha=g["weight_decay"])
                if g["lars_adaptation_filter"] is None or not g["lars_adaptation_filter"](p):
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
    """lr = base_lr * batch_size / 256 (the value after the reference code's warm-up)."""
    return LARS(params, lr=BASE_LR * BATCH / 256, weight_decay=WEIGHT_DECAY,
                weight_decay_filter=exclude_bias_and_norm, lars_adaptation_filter=exclude_bias_and_norm)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = make_images(gen, BATCH)
    spec = {
        "model": VICReg(),
        "batch": (images, labels),  # raw [0, 1] images; labels ride along as in the loader, the loss ignores them
        "loss_fn": vicreg_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
