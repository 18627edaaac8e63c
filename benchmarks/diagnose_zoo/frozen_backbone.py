"""PyTorch's transfer-learning tutorial, "ConvNet as fixed feature extractor": a ResNet-style backbone with requires_grad=False, a new fc, SGD 1e-3/0.9 over model.fc.parameters() (random backbone: no downloads)."""

from __future__ import annotations

import torch
from torch import nn

from ._data import normalise_images, template_images

NUM_CLASSES = 2  # the tutorial's ants vs bees
IMAGE_SIZE = 16
PER_CLASS = 12


class Backbone(nn.Module):
    """A ResNet-style stem and two residual stages, then global average pooling (stands in for resnet18)."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.stage1 = self._stage(width, width, 1)
        self.stage2 = self._stage(width, 2 * width, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.out_features = 2 * width

    @staticmethod
    def _stage(inp: int, out: int, stride: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(inp, out, 3, stride, 1, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True),
                             nn.Conv2d(out, out, 3, 1, 1, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self.pool(self.stage2(self.stage1(self.stem(x)))), 1)


class FeatureExtractorClassifier(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        self.backbone = Backbone()
        for param in self.backbone.parameters():
            param.requires_grad = False
        # Parameters of newly constructed modules have requires_grad=True by default
        self.fc = nn.Linear(self.backbone.out_features, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.backbone(x))


def make_optimizer(params) -> torch.optim.Optimizer:
    # the tutorial: optim.SGD(model_conv.fc.parameters(), lr=0.001, momentum=0.9); only the trainable ones reach here
    return torch.optim.SGD([p for p in params if p.requires_grad], lr=0.001, momentum=0.9)


criterion = nn.CrossEntropyLoss()


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    inputs, labels = batch
    optimizer.zero_grad()
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = template_images(gen, NUM_CLASSES, 3, IMAGE_SIZE, PER_CLASS)
    spec = {
        "model": FeatureExtractorClassifier(NUM_CLASSES),
        "batch": (normalise_images(images), labels),
        "loss_fn": criterion,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
