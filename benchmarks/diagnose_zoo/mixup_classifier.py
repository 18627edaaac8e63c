"""facebookresearch/mixup-cifar10 (Zhang et al. 2018, mixup): kuangliu-style ResNet (conv3x3-BN-ReLU stem, BasicBlocks with BN and 1x1-conv shortcuts, avg-pool, linear) trained with mixup inside the step (lam ~ Beta(alpha=1, alpha), x' = lam*x + (1-lam)*x[randperm], loss = lam*CE(out, y_a) + (1-lam)*CE(out, y_b)), SGD lr 0.1 momentum 0.9 weight_decay 1e-4."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 6
IMAGE_SIZE = 16
BATCH = 32
ALPHA = 1.0  # mixup-cifar10 default --alpha 1
TASK_SEED = 20180101  # fixes the class templates; the sample seed only draws the samples


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    """ResNet18's layout with one block per stage and three stages (8, 16, 32 channels) for 16x16 inputs."""

    def __init__(self, block=BasicBlock, num_blocks=(1, 1, 1), num_classes: int = NUM_CLASSES):
        super().__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 32, num_blocks[2], stride=2)
        self.linear = nn.Linear(32 * block.expansion, num_classes)

    def _make_layer(self, block, planes: int, num_blocks: int, stride: int) -> nn.Sequential:
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for s in strides:
            layers.append(block(self.in_planes, planes, s))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = F.avg_pool2d(out, 4)
        out = out.view(out.size(0), -1)
        return self.linear(out)


def _templates() -> torch.Tensor:
    gen = torch.Generator().manual_seed(TASK_SEED)
    coarse = torch.randn(NUM_CLASSES, 3, 4, 4, generator=gen)
    return F.interpolate(coarse, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)


def make_batch(seed: int, count: int = BATCH):
    """Noisy, randomly shifted and rescaled copies of one smooth colour template per class (about zero mean, unit variance)."""
    gen = torch.Generator().manual_seed(seed)
    templates = _templates()
    labels = torch.arange(count) % NUM_CLASSES
    labels = labels[torch.randperm(count, generator=gen)]
    images = []
    for c in labels.tolist():
        dx, dy = torch.randint(-2, 3, (2,), generator=gen).tolist()
        img = torch.roll(templates[c], shifts=(dy, dx), dims=(1, 2))
        img = img * (0.7 + 0.6 * torch.rand(1, generator=gen)) + 0.8 * torch.randn(img.shape, generator=gen)
        images.append(img)
    return torch.stack(images), labels


criterion = nn.CrossEntropyLoss()


def mixup_data(x: torch.Tensor, y: torch.Tensor, alpha: float = ALPHA):
    """Returns mixed inputs, pairs of targets, and lambda."""
    if alpha > 0:
        lam = float(torch.distributions.Beta(alpha, alpha).sample())
    else:
        lam = 1.0
    batch_size = x.size(0)
    index = torch.randperm(batch_size, device=x.device)
    mixed_x = lam * x + (1 - lam) * x[index, :]
    y_a, y_b = y, y[index]
    return mixed_x, y_a, y_b, lam


def mixup_criterion(crit, pred, y_a, y_b, lam: float) -> torch.Tensor:
    return lam * crit(pred, y_a) + (1 - lam) * crit(pred, y_b)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    inputs, targets = batch
    inputs, targets_a, targets_b, lam = mixup_data(inputs, targets, ALPHA)
    outputs = model(inputs)
    loss = mixup_criterion(criterion, outputs, targets_a, targets_b, lam)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-4)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": ResNet(),
        "batch": batch,
        "loss_fn": criterion,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
