"""torchvision.models.mobilenet_v2 (inverted residuals, ReLU6, depthwise convs, its init) at width 8 on 16x16 images, SGD 0.045/0.9/4e-5 as in torchvision's reference recipe."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._data import normalise_images, template_images

NUM_CLASSES = 6
IMAGE_SIZE = 16
PER_CLASS = 5


class ConvBNReLU(nn.Sequential):
    def __init__(self, inp: int, out: int, kernel: int = 3, stride: int = 1, groups: int = 1):
        super().__init__(nn.Conv2d(inp, out, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(out), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int):
        super().__init__()
        hidden = inp * expand_ratio
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Module] = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden, kernel=1))  # pointwise expansion
        layers += [ConvBNReLU(hidden, hidden, stride=stride, groups=hidden),  # depthwise
                   nn.Conv2d(hidden, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup)]  # linear bottleneck
        self.conv = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes: int, dropout: float = 0.2):
        super().__init__()
        # t (expansion), c (channels), n (repeats), s (stride): torchvision's table, narrowed and shortened
        setting = [[1, 8, 1, 1], [6, 12, 2, 2], [6, 16, 2, 2]]
        input_channel, last_channel = 8, 64
        features: list[nn.Module] = [ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in setting:
            for i in range(n):
                features.append(InvertedResidual(input_channel, c, s if i == 0 else 1, t))
                input_channel = c
        features.append(ConvBNReLU(input_channel, last_channel, kernel=1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(last_channel, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        return self.classifier(torch.flatten(x, 1))


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.045, momentum=0.9, weight_decay=4e-5)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    images, labels = batch
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = template_images(gen, NUM_CLASSES, 3, IMAGE_SIZE, PER_CLASS)
    spec = {
        "model": MobileNetV2(NUM_CLASSES),
        "batch": (normalise_images(images), labels),
        "loss_fn": nn.CrossEntropyLoss(),
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
