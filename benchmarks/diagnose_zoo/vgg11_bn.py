"""torchvision.models.vgg11_bn (configuration "A" with BatchNorm, ReLU-Dropout classifier, its init) narrowed to 8-32 channels on 16x16 images, SGD 0.01/0.9/5e-4 as in torchvision's reference recipe."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import normalise_images, template_images

NUM_CLASSES = 8
IMAGE_SIZE = 16
PER_CLASS = 4
CFG = [8, "M", 16, "M", 32, 32, "M"]  # vgg11's "A" is [64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M]


def make_layers(cfg: list) -> nn.Sequential:
    layers: list[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features: nn.Module, num_classes: int, dropout: float = 0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(
            nn.Linear(32 * 2 * 2, 64), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(64, 64), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(64, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                # torchvision's N(0, 0.01) on 4096-wide layers: the same per-layer gain at this width
                nn.init.normal_(m.weight, 0, 0.01 * (4096 / m.in_features) ** 0.5)
                nn.init.constant_(m.bias, 0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=5e-4)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    images, labels = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = template_images(gen, NUM_CLASSES, 3, IMAGE_SIZE, PER_CLASS)
    spec = {
        "model": VGG(make_layers(CFG), NUM_CLASSES),
        "batch": (normalise_images(images), labels),
        "loss_fn": F.cross_entropy,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
