"""HobbitLong/SupContrast (Khosla et al. 2020, Supervised Contrastive Learning): SupConResNet (CIFAR ResNet encoder + 'mlp' head Linear-ReLU-Linear, F.normalize on the features), TwoCropTransform views concatenated in the batch, SupConLoss(temperature=0.07, base_temperature=0.07, contrast_mode='all') on features [bsz, n_views, dim] with the labels, SGD lr 0.05 momentum 0.9 weight_decay 1e-4."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 6
IMAGE_SIZE = 12
BATCH_SIZE = 32       # images; 2 x 32 views go through the network
FEAT_DIM = 16         # 128 in the repo


# ---------------------------------------------------------------- data
def make_images(gen: torch.Generator, n: int = BATCH_SIZE):
    """Texture images in [0, 1]: the class is the kind of texture (stripes, checks, rings, ...), while the wavelength,
    phase, contrast, colour cast and noise vary per image, so every crop still shows its class."""
    labels = torch.arange(n) % NUM_CLASSES
    labels = labels[torch.randperm(n, generator=gen)]
    yy, xx = torch.meshgrid(torch.arange(IMAGE_SIZE).float(), torch.arange(IMAGE_SIZE).float(), indexing="ij")
    textures = []
    for k in labels.tolist():
        w = 2 * math.pi / (3.0 + 2.0 * float(torch.rand((), generator=gen)))
        ph = 2 * math.pi * float(torch.rand((), generator=gen))
        if k == 0:      # horizontal stripes
            t = torch.sin(w * yy + ph)
        elif k == 1:    # vertical stripes
            t = torch.sin(w * xx + ph)
        elif k == 2:    # checks
            t = torch.sin(w * xx + ph) * torch.sin(w * yy + ph)
        elif k == 3:    # rings around a random centre
            cy, cx = (IMAGE_SIZE * torch.rand(2, generator=gen)).tolist()
            t = torch.sin(w * torch.sqrt((yy - cy) ** 2 + (xx - cx) ** 2) + ph)
        elif k == 4:    # diamonds
            t = torch.sin(w * (xx + yy) / math.sqrt(2) + ph) + torch.sin(w * (xx - yy) / math.sqrt(2) + ph)
        else:           # blotches
            t = 1.5 * F.interpolate(torch.randn(1, 1, 4, 4, generator=gen), size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)[0, 0]
        textures.append(t)
    t = torch.stack(textures).unsqueeze(1)
    contrast = 0.5 + torch.rand(n, 1, 1, 1, generator=gen)
    colour = 0.7 * torch.randn(n, 3, 1, 1, generator=gen)
    x = contrast * t + colour + 0.3 * torch.randn(n, 3, IMAGE_SIZE, IMAGE_SIZE, generator=gen)
    return torch.sigmoid(x), labels


def _gray(x):
    return (0.299 * x[:, 0:1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:3]).expand_as(x)


def train_transform(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """RandomResizedCrop(size, scale=(0.2, 1.)), RandomHorizontalFlip(), RandomApply([ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
    RandomGrayscale(p=0.2), ToTensor, Normalize(CIFAR-10 mean/std); per image (hue jitter left out)."""
    n = x.size(0)
    scale = 0.2 + 0.8 * torch.rand(n, generator=gen)
    ratio = torch.exp(math.log(3 / 4) + (math.log(4 / 3) - math.log(3 / 4)) * torch.rand(n, generator=gen))
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
    apply = (torch.rand(n, 1, 1, 1, generator=gen) < 0.8).float()
    b = 1 + 0.4 * (2 * torch.rand(n, 1, 1, 1, generator=gen) - 1)
    c = 1 + 0.4 * (2 * torch.rand(n, 1, 1, 1, generator=gen) - 1)
    s = 1 + 0.4 * (2 * torch.rand(n, 1, 1, 1, generator=gen) - 1)
    j = (x * b).clamp(0, 1)
    m = _gray(j).mean(dim=(1, 2, 3), keepdim=True)
    j = ((j - m) * c + m).clamp(0, 1)
    j = (_gray(j) + (j - _gray(j)) * s).clamp(0, 1)
    x = apply * j + (1 - apply) * x
    gray = (torch.rand(n, 1, 1, 1, generator=gen) < 0.2).float()
    x = gray * _gray(x) + (1 - gray) * x
    mean = torch.tensor([0.4914, 0.4822, 0.4465]).view(1, 3, 1, 1)
    std = torch.tensor([0.2023, 0.1994, 0.2010]).view(1, 3, 1, 1)
    return (x - mean) / std


def make_batch(gen: torch.Generator):
    """TwoCropTransform, then the training loop's images = torch.cat([images[0], images[1]], dim=0)."""
    images, labels = make_images(gen)
    return torch.cat([train_transform(images, gen), train_transform(images, gen)], dim=0), labels


# ---------------------------------------------------------------- networks/resnet_big.py, shrunk
class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1, is_last=False):
        super().__init__()
        self.is_last = is_last
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

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        preact = out
        out = F.relu(out)
        if self.is_last:
            return out, preact
        return out


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, widths=(8, 16), in_channel=3, zero_init_residual=False):
        super().__init__()
        self.in_planes = widths[0]
        self.conv1 = nn.Conv2d(in_channel, widths[0], kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.layer1 = self._make_layer(block, widths[0], num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, widths[1], num_blocks[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for i in range(num_blocks):
            stride = strides[i]
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x, layer=100):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.avgpool(out)
        out = torch.flatten(out, 1)
        return out


class SupConResNet(nn.Module):
    """backbone + projection head"""

    def __init__(self, head="mlp", feat_dim=FEAT_DIM, dim_in=16):
        super().__init__()
        self.encoder = ResNet(BasicBlock, [1, 1])
        if head == "linear":
            self.head = nn.Linear(dim_in, feat_dim)
        elif head == "mlp":
            self.head = nn.Sequential(
                nn.Linear(dim_in, dim_in),
                nn.ReLU(inplace=True),
                nn.Linear(dim_in, feat_dim),
            )
        else:
            raise NotImplementedError("head not supported: {}".format(head))

    def forward(self, x):
        feat = self.encoder(x)
        feat = F.normalize(self.head(feat), dim=1)
        return feat


# ---------------------------------------------------------------- losses.py
class SupConLoss(nn.Module):
    """Supervised Contrastive Learning: https://arxiv.org/pdf/2004.11362.pdf. It also supports the unsupervised contrastive loss in SimCLR"""

    def __init__(self, temperature=0.07, contrast_mode="all", base_temperature=0.07):
        super().__init__()
        self.temperature = temperature
        self.contrast_mode = contrast_mode
        self.base_temperature = base_temperature

    def forward(self, features, labels=None, mask=None):
        device = features.device
        if len(features.shape) < 3:
            raise ValueError("`features` needs to be [bsz, n_views, ...], at least 3 dimensions are required")
        if len(features.shape) > 3:
            features = features.view(features.shape[0], features.shape[1], -1)

        batch_size = features.shape[0]
        if labels is not None and mask is not None:
            raise ValueError("Cannot define both `labels` and `mask`")
        elif labels is None and mask is None:
            mask = torch.eye(batch_size, dtype=torch.float32).to(device)
        elif labels is not None:
            labels = labels.contiguous().view(-1, 1)
            if labels.shape[0] != batch_size:
                raise ValueError("Num of labels does not match num of features")
            mask = torch.eq(labels, labels.T).float().to(device)
        else:
            mask = mask.float().to(device)

        contrast_count = features.shape[1]
        contrast_feature = torch.cat(torch.unbind(features, dim=1), dim=0)
        if self.contrast_mode == "one":
            anchor_feature = features[:, 0]
            anchor_count = 1
        elif self.contrast_mode == "all":
            anchor_feature = contrast_feature
            anchor_count = contrast_count
        else:
            raise ValueError("Unknown mode: {}".format(self.contrast_mode))

        # compute logits
        anchor_dot_contrast = torch.div(torch.matmul(anchor_feature, contrast_feature.T), self.temperature)
        # for numerical stability
        logits_max, _ = torch.max(anchor_dot_contrast, dim=1, keepdim=True)
        logits = anchor_dot_contrast - logits_max.detach()

        # tile mask
        mask = mask.repeat(anchor_count, contrast_count)
        # mask-out self-contrast cases
        logits_mask = torch.scatter(torch.ones_like(mask), 1, torch.arange(batch_size * anchor_count).view(-1, 1).to(device), 0)
        mask = mask * logits_mask

        # compute log_prob
        exp_logits = torch.exp(logits) * logits_mask
        log_prob = logits - torch.log(exp_logits.sum(1, keepdim=True))

        # compute mean of log-likelihood over positive
        # modified to handle edge cases when there is no positive pair
        # for an anchor point.
        # Edge case e.g.:-
        # features of shape: [4,1,...]
        # features of shape: [4,1,...]
        mask_pos_pairs = mask.sum(1)
        mask_pos_pairs = torch.where(mask_pos_pairs < 1e-6, 1, mask_pos_pairs)
        mean_log_prob_pos = (mask * log_prob).sum(1) / mask_pos_pairs

        # loss
        loss = -(self.temperature / self.base_temperature) * mean_log_prob_pos
        loss = loss.view(anchor_count, batch_size).mean()
        return loss


criterion = SupConLoss(temperature=0.07)


def supcon_loss(features: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """main_supcon.train: split the 2*bsz features back into [bsz, 2, dim]."""
    bsz = labels.shape[0]
    f1, f2 = torch.split(features, [bsz, bsz], dim=0)
    features = torch.cat([f1.unsqueeze(1), f2.unsqueeze(1)], dim=1)
    return criterion(features, labels)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    images, labels = make_batch(torch.Generator().manual_seed(seed))
    val_images, val_labels = make_batch(torch.Generator().manual_seed(seed + 1000))
    spec = {
        "model": SupConResNet(),
        "batch": (images, labels),           # images: [2*bsz, 3, H, W] (both views), labels: [bsz]
        "val_batch": (val_images, val_labels),
        "loss_fn": supcon_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
