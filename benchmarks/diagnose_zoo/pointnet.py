"""fxia22/pointnet.pytorch's PointNetCls without the T-nets (shared Conv1d(k=1)-BN-ReLU MLP on (B, 3, N) points, max pooling, FC-BN-ReLU-Dropout head, log_softmax + NLLLoss), Adam 1e-3 betas (0.9, 0.999)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 4
POINTS = 32
PER_CLASS = 8


class PointNetCls(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.conv1 = nn.Conv1d(3, 16, 1)
        self.conv2 = nn.Conv1d(16, 32, 1)
        self.conv3 = nn.Conv1d(32, 64, 1)
        self.bn1, self.bn2, self.bn3 = nn.BatchNorm1d(16), nn.BatchNorm1d(32), nn.BatchNorm1d(64)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 16)
        self.fc3 = nn.Linear(16, k)
        self.dropout = nn.Dropout(p=0.3)
        self.bn4, self.bn5 = nn.BatchNorm1d(32), nn.BatchNorm1d(16)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        x = torch.max(x, 2, keepdim=True)[0].view(-1, 64)  # symmetric function over the points
        x = F.relu(self.bn4(self.fc1(x)))
        x = F.relu(self.bn5(self.dropout(self.fc2(x))))
        return F.log_softmax(self.fc3(x), dim=1)


def make_shapes(gen: torch.Generator):
    """Points on four surfaces (sphere, cube, cylinder, cone), randomly scaled and in random order."""
    clouds, labels = [], []
    for c in range(NUM_CLASSES):
        for _ in range(PER_CLASS):
            u = torch.rand(POINTS, 2, generator=gen)
            theta, h = 2 * torch.pi * u[:, 0], 2 * u[:, 1] - 1
            if c == 0:
                v = torch.randn(POINTS, 3, generator=gen)
                p = v / v.norm(dim=1, keepdim=True)
            elif c == 1:
                p = 2 * torch.rand(POINTS, 3, generator=gen) - 1
                face = torch.randint(0, 3, (POINTS,), generator=gen)
                p[torch.arange(POINTS), face] = torch.sign(p[torch.arange(POINTS), face])
            elif c == 2:
                p = torch.stack([theta.cos(), theta.sin(), h], dim=1)
            else:
                r = (1 - h) / 2
                p = torch.stack([r * theta.cos(), r * theta.sin(), h], dim=1)
            scale = 0.8 + 0.4 * torch.rand(1, generator=gen)
            clouds.append((scale * p + 0.02 * torch.randn(POINTS, 3, generator=gen)).T)
            labels.append(c)
    return torch.stack(clouds), torch.tensor(labels)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=0.001, betas=(0.9, 0.999))


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    points, target = batch
    optimizer.zero_grad()
    pred = model(points)
    loss = F.nll_loss(pred, target)
    loss.backward()
    optimizer.step()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    points, labels = make_shapes(gen)
    spec = {
        "model": PointNetCls(NUM_CLASSES),
        "batch": (points, labels),
        "loss_fn": F.nll_loss,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
