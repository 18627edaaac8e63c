"""deepinsight/insightface recognition/arcface_torch (Deng et al. 2019, ArcFace): IResNet backbone (conv-BN-PReLU stem, IBasicBlocks BN-conv-BN-PReLU-conv-BN, output BN2d-flatten-Dropout-FC-BatchNorm1d with its weight frozen at 1), PartialFC (sample_rate 1) cosine logits normalize(x) @ normalize(W).T clamped to [-1, 1], ArcFace margin s=64 m=0.5 on the target logit, cross-entropy; SGD lr 0.1 momentum 0.9 weight_decay 5e-4, clip_grad_norm_(backbone, 5) before each step."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_IDENTITIES = 8
PER_IDENTITY = 6
IMAGE_SIZE = 12          # 112 x 112 aligned faces, shrunk
EMBEDDING_SIZE = 32
WORLD_SEED = 2019


# ---------------------------------------------------------------- data: aligned face crops of a few identities
def _identities() -> torch.Tensor:
    g = torch.Generator().manual_seed(WORLD_SEED)
    low = torch.randn(NUM_IDENTITIES, 3, 4, 4, generator=g)
    t = F.interpolate(low, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)
    return t / t.flatten(1).std(1).view(-1, 1, 1, 1)


def make_faces(gen: torch.Generator, per_identity: int = PER_IDENTITY):
    labels = torch.arange(NUM_IDENTITIES).repeat_interleave(per_identity)
    labels = labels[torch.randperm(labels.numel(), generator=gen)]
    n = labels.numel()
    x = _identities()[labels]
    flip = torch.rand(n, generator=gen) < 0.5                     # RandomHorizontalFlip
    x = torch.where(flip.view(-1, 1, 1, 1), x.flip(3), x)
    x = 0.7 * x + 0.5 * torch.randn(n, 3, 1, 1, generator=gen) + 0.4 * torch.randn(x.shape, generator=gen)
    x = torch.sigmoid(x)
    return (x - 0.5) / 0.5, labels                                # Normalize(mean=0.5, std=0.5)


# ---------------------------------------------------------------- backbone (iresnet.py, shrunk)
def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class IBasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(inplanes, eps=1e-05)
        self.conv1 = conv3x3(inplanes, planes)
        self.bn2 = nn.BatchNorm2d(planes, eps=1e-05)
        self.prelu = nn.PReLU(planes)
        self.conv2 = conv3x3(planes, planes, stride)
        self.bn3 = nn.BatchNorm2d(planes, eps=1e-05)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.bn1(x)
        out = self.conv1(out)
        out = self.bn2(out)
        out = self.prelu(out)
        out = self.conv2(out)
        out = self.bn3(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return out


class IResNet(nn.Module):
    fc_scale = 3 * 3

    def __init__(self, block=IBasicBlock, layers=(1, 1), widths=(8, 12, 16), dropout=0.0, num_features=EMBEDDING_SIZE):
        super().__init__()
        self.inplanes = widths[0]
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes, eps=1e-05)
        self.prelu = nn.PReLU(self.inplanes)
        self.layer1 = self._make_layer(block, widths[1], layers[0], stride=2)
        self.layer2 = self._make_layer(block, widths[2], layers[1], stride=2)
        self.bn2 = nn.BatchNorm2d(widths[2] * block.expansion, eps=1e-05)
        self.dropout = nn.Dropout(p=dropout, inplace=True)
        self.fc = nn.Linear(widths[2] * block.expansion * self.fc_scale, num_features)
        self.features = nn.BatchNorm1d(num_features, eps=1e-05)
        nn.init.constant_(self.features.weight, 1.0)
        self.features.weight.requires_grad = False

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.normal_(m.weight, 0, 0.1)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                nn.BatchNorm2d(planes * block.expansion, eps=1e-05),
            )
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.prelu(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.bn2(x)
        x = torch.flatten(x, 1)
        x = self.dropout(x)
        x = self.fc(x.float())
        x = self.features(x)
        return x


class PartialFC(nn.Module):
    """PartialFC_V2 with sample_rate = 1 on one process: cosine logits against the class centres."""

    def __init__(self, embedding_size: int, num_classes: int):
        super().__init__()
        self.weight = nn.Parameter(torch.normal(0, 0.01, (num_classes, embedding_size)))

    def forward(self, embeddings):
        norm_embeddings = F.normalize(embeddings)
        norm_weight_activated = F.normalize(self.weight)
        logits = F.linear(norm_embeddings, norm_weight_activated)
        return logits.clamp(-1, 1)


class FaceRecognizer(nn.Module):
    """backbone -> cosine logits; the margin needs the labels and lives in the loss, as in arcface_torch."""

    def __init__(self):
        super().__init__()
        self.backbone = IResNet()
        self.partial_fc = PartialFC(EMBEDDING_SIZE, NUM_IDENTITIES)

    def forward(self, img):
        return self.partial_fc(self.backbone(img))


# ---------------------------------------------------------------- losses.py ArcFace + cross-entropy
class ArcFace(nn.Module):
    """ArcFace (https://arxiv.org/pdf/1801.07698v1.pdf)"""

    def __init__(self, s=64.0, margin=0.5):
        super().__init__()
        self.scale = s
        self.cos_m = math.cos(margin)
        self.sin_m = math.sin(margin)
        self.theta = math.cos(math.pi - margin)
        self.sinmm = math.sin(math.pi - margin) * margin
        self.easy_margin = False

    def forward(self, logits: torch.Tensor, labels: torch.Tensor):
        logits = logits.clone()   # the repo edits the clamped logits in place; clone so the caller's tensor is kept
        index = torch.where(labels != -1)[0]
        target_logit = logits[index, labels[index].view(-1)]
        sin_theta = torch.sqrt(1.0 - torch.pow(target_logit, 2))
        cos_theta_m = target_logit * self.cos_m - sin_theta * self.sin_m  # cos(target+margin)
        if self.easy_margin:
            final_target_logit = torch.where(target_logit > 0, cos_theta_m, target_logit)
        else:
            final_target_logit = torch.where(target_logit > self.theta, cos_theta_m, target_logit - self.sinmm)
        logits[index, labels[index].view(-1)] = final_target_logit
        logits = logits * self.scale
        return logits


margin_softmax = ArcFace(s=64.0, margin=0.5)


def arcface_loss(cos_logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(margin_softmax(cos_logits, labels), labels)


def accuracy(cos_logits: torch.Tensor, labels: torch.Tensor) -> float:
    """Identification accuracy: the nearest class centre (no margin at test time)."""
    return float((cos_logits.argmax(dim=1) == labels).float().mean())


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=5e-4)


def train_step(model: FaceRecognizer, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    img, local_labels = batch
    loss = arcface_loss(model(img), local_labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.backbone.parameters(), 5)
    optimizer.step()
    optimizer.zero_grad()
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    images, labels = make_faces(torch.Generator().manual_seed(seed))
    val_images, val_labels = make_faces(torch.Generator().manual_seed(seed + 1000))
    spec = {
        "model": FaceRecognizer(),
        "batch": (images, labels),
        "val_batch": (val_images, val_labels),
        "loss_fn": arcface_loss,
        "task": "classification",
        "num_classes": NUM_IDENTITIES,
        "metric": accuracy,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
