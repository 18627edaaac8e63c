"""Spijkervet/SimCLR (Chen et al. 2020): ResNet encoder (CIFAR stem, fc=Identity), projector Linear(n, n, bias=False)-ReLU-Linear(n, d, bias=False), forward(x_i, x_j) -> (h_i, h_j, z_i, z_j), NT_Xent(temperature=0.5) over the 2N views with in-batch negatives, Adam lr 3e-4."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 6      # latent object classes; SimCLR never sees the labels
IMAGE_SIZE = 10
BATCH_SIZE = 32      # N images -> 2N views
PROJECTION_DIM = 16
TEMPERATURE = 0.5
WORLD_SEED = 2020    # fixes the object classes; the seed only draws samples and augmentations


# ---------------------------------------------------------------- data ("CIFAR-like" 3x10x10 images)
def _class_templates() -> torch.Tensor:
    """One luminance pattern per class (the same in the three channels)."""
    g = torch.Generator().manual_seed(WORLD_SEED)
    low = torch.randn(NUM_CLASSES, 1, 4, 4, generator=g)
    t = F.interpolate(low, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)
    return (t / t.flatten(1).std(1).view(-1, 1, 1, 1)).expand(-1, 3, -1, -1)


def make_images(gen: torch.Generator, n: int = BATCH_SIZE):
    """Images in [0, 1] (what ToTensor gives): the class pattern, an instance texture and colour, a random shift."""
    labels = torch.arange(n) % NUM_CLASSES
    labels = labels[torch.randperm(n, generator=gen)]
    x = _class_templates()[labels]
    texture = F.interpolate(torch.randn(n, 3, 3, 3, generator=gen), size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)
    x = x + 0.3 * texture + torch.randn(n, 3, 1, 1, generator=gen)
    shifts = torch.randint(-3, 4, (n, 2), generator=gen)
    x = torch.stack([torch.roll(x[i], shifts=(int(shifts[i, 0]), int(shifts[i, 1])), dims=(1, 2)) for i in range(n)])
    return torch.sigmoid(x), labels


def _gray(x: torch.Tensor) -> torch.Tensor:
    return (0.299 * x[:, 0:1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:3]).expand_as(x)


def simclr_augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """TransformsSimCLR: RandomResizedCrop(size), RandomHorizontalFlip(), RandomApply([ColorJitter(0.8, 0.8, 0.8, 0.2)], p=0.8),
    RandomGrayscale(p=0.2); per image, as the DataLoader applies it (hue jitter left out)."""
    n = x.size(0)
    scale = 0.08 + 0.92 * torch.rand(n, generator=gen)
    log_r = math.log(3 / 4) + (math.log(4 / 3) - math.log(3 / 4)) * torch.rand(n, generator=gen)
    ratio = torch.exp(log_r)
    w = torch.sqrt(scale * ratio).clamp(max=1.0)
    h = torch.sqrt(scale / ratio).clamp(max=1.0)
    cx = (1 - w) * (2 * torch.rand(n, generator=gen) - 1)
    cy = (1 - h) * (2 * torch.rand(n, generator=gen) - 1)
    flip = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 2] = w * flip, cx
    theta[:, 1, 1], theta[:, 1, 2] = h, cy
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # colour jitter with p = 0.8: brightness, contrast, saturation 0.8
    apply = (torch.rand(n, 1, 1, 1, generator=gen) < 0.8).float()
    b = 1 + 0.8 * (2 * torch.rand(n, 1, 1, 1, generator=gen) - 1)
    c = 1 + 0.8 * (2 * torch.rand(n, 1, 1, 1, generator=gen) - 1)
    s = 1 + 0.8 * (2 * torch.rand(n, 1, 1, 1, generator=gen) - 1)
    j = (x * b).clamp(0, 1)
    m = _gray(j).mean(dim=(1, 2, 3), keepdim=True)
    j = ((j - m) * c + m).clamp(0, 1)
    j = (_gray(j) + (j - _gray(j)) * s).clamp(0, 1)
    x = apply * j + (1 - apply) * x
    gray = (torch.rand(n, 1, 1, 1, generator=gen) < 0.2).float()
    return gray * _gray(x) + (1 - gray) * x


# ---------------------------------------------------------------- model
class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet(nn.Module):
    """torchvision-style ResNet with the CIFAR stem of the SimCLR paper (3x3 conv, stride 1, no max-pool); fc = Identity."""

    def __init__(self, widths=(8, 16)):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.layer1 = BasicBlock(widths[0], widths[0])
        self.layer2 = BasicBlock(widths[0], widths[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Identity()
        self.out_features = widths[1]
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class SimCLR(nn.Module):
    def __init__(self, encoder: nn.Module, projection_dim: int, n_features: int):
        super().__init__()
        self.encoder = encoder
        self.n_features = n_features
        # We use a MLP with one hidden layer to obtain z_i = g(h_i) = W(2) * ReLU(W(1) * h_i)
        self.projector = nn.Sequential(
            nn.Linear(self.n_features, self.n_features, bias=False),
            nn.ReLU(),
            nn.Linear(self.n_features, projection_dim, bias=False),
        )

    def forward(self, x_i, x_j):
        h_i = self.encoder(x_i)
        h_j = self.encoder(x_j)
        z_i = self.projector(h_i)
        z_j = self.projector(h_j)
        return h_i, h_j, z_i, z_j


class NT_Xent(nn.Module):
    """Spijkervet's NT_Xent (world_size 1); the mask is built for the batch it is given rather than fixed at construction."""

    def __init__(self, temperature: float):
        super().__init__()
        self.temperature = temperature
        self.criterion = nn.CrossEntropyLoss(reduction="sum")
        self.similarity_f = nn.CosineSimilarity(dim=2)

    @staticmethod
    def mask_correlated_samples(batch_size: int) -> torch.Tensor:
        N = 2 * batch_size
        mask = torch.ones((N, N), dtype=bool)
        mask = mask.fill_diagonal_(0)
        for i in range(batch_size):
            mask[i, batch_size + i] = 0
            mask[batch_size + i, i] = 0
        return mask

    def forward(self, z_i, z_j):
        """2(N - 1) negatives per positive pair: the other views in the batch."""
        batch_size = z_i.size(0)
        N = 2 * batch_size
        z = torch.cat((z_i, z_j), dim=0)
        sim = self.similarity_f(z.unsqueeze(1), z.unsqueeze(0)) / self.temperature
        sim_i_j = torch.diag(sim, batch_size)
        sim_j_i = torch.diag(sim, -batch_size)
        positive_samples = torch.cat((sim_i_j, sim_j_i), dim=0).reshape(N, 1)
        negative_samples = sim[self.mask_correlated_samples(batch_size).to(z.device)].reshape(N, -1)
        labels = torch.zeros(N).to(positive_samples.device).long()
        logits = torch.cat((positive_samples, negative_samples), dim=1)
        loss = self.criterion(logits, labels)
        loss /= N
        return loss


criterion = NT_Xent(TEMPERATURE)


def simclr_loss(outputs, _targets=None) -> torch.Tensor:
    h_i, h_j, z_i, z_j = outputs
    return criterion(z_i, z_j)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3e-4)


def _views(seed: int):
    gen = torch.Generator().manual_seed(seed)
    images, _ = make_images(gen)
    return simclr_augment(images, gen), simclr_augment(images, gen)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    encoder = ResNet()
    model = SimCLR(encoder, PROJECTION_DIM, encoder.out_features)
    x_i, x_j = _views(seed)
    v_i, v_j = _views(seed + 1000)
    spec = {
        "model": model,
        "batch": ((x_i, x_j), None),          # train_loader yields ((x_i, x_j), _); the labels are dropped
        "val_batch": ((v_i, v_j), None),
        "loss_fn": simclr_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
