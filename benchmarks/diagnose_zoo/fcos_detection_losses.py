"""tianzhi0549/FCOS (Tian et al. 2019): shared head with GN conv towers, cls_logits (prior-prob bias), Scale+exp box regression and centerness on the cls tower, one stride-2 level; sigmoid focal loss (alpha 0.25, gamma 2) / num_pos, GIoU loss weighted by centerness targets, centerness BCE / num_pos; SGD lr 0.01 momentum 0.9 wd 1e-4."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 2  # foreground classes; background is 0 in the label map
IMAGE = 20
STRIDE = 2
FEAT = IMAGE // STRIDE
COUNT = 20
CH = 16


class Scale(nn.Module):
    def __init__(self, init_value: float = 1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([init_value]))

    def forward(self, x):
        return x * self.scale


def conv_gn_relu(cin, cout, stride=1):
    return [nn.Conv2d(cin, cout, 3, stride, 1), nn.GroupNorm(4, cout), nn.ReLU()]


class TinyFCOS(nn.Module):
    """A two-conv stand-in for ResNet+FPN (one level, stride 2) and the FCOSHead as in the repository."""

    def __init__(self, num_classes: int = NUM_CLASSES, prior_prob: float = 0.01):
        super().__init__()
        self.backbone = nn.Sequential(*conv_gn_relu(3, CH), *conv_gn_relu(CH, CH, stride=STRIDE))
        self.cls_tower = nn.Sequential(*conv_gn_relu(CH, CH), *conv_gn_relu(CH, CH))
        self.bbox_tower = nn.Sequential(*conv_gn_relu(CH, CH), *conv_gn_relu(CH, CH))
        self.cls_logits = nn.Conv2d(CH, num_classes, 3, 1, 1)
        self.bbox_pred = nn.Conv2d(CH, 4, 3, 1, 1)
        self.centerness = nn.Conv2d(CH, 1, 3, 1, 1)
        for modules in [self.cls_tower, self.bbox_tower, self.cls_logits, self.bbox_pred, self.centerness]:
            for l in modules.modules():
                if isinstance(l, nn.Conv2d):
                    torch.nn.init.normal_(l.weight, std=0.01)
                    torch.nn.init.constant_(l.bias, 0)
        bias_value = -math.log((1 - prior_prob) / prior_prob)
        torch.nn.init.constant_(self.cls_logits.bias, bias_value)
        self.scale = Scale(1.0)

    def forward(self, images):
        feature = self.backbone(images)
        cls_tower = self.cls_tower(feature)
        logits = self.cls_logits(cls_tower)
        centerness = self.centerness(cls_tower)
        bbox_reg = torch.exp(self.scale(self.bbox_pred(self.bbox_tower(feature))))
        return logits, bbox_reg, centerness


def sigmoid_focal_loss(logits, targets, gamma=2.0, alpha=0.25):
    """FCOS's SigmoidFocalLoss (summed): logits (N, C), targets (N,) with 0 = background, 1..C = classes."""
    num_classes = logits.shape[1]
    class_range = torch.arange(1, num_classes + 1, device=targets.device).unsqueeze(0)
    t = targets.unsqueeze(1)
    p = torch.sigmoid(logits)
    term1 = (1 - p) ** gamma * torch.log(p.clamp_min(1e-12))
    term2 = p ** gamma * torch.log((1 - p).clamp_min(1e-12))
    return (-(t == class_range).float() * term1 * alpha - ((t != class_range) * (t >= 0)).float() * term2 * (1 - alpha)).sum()


def giou_loss(pred, target, weight):
    """FCOS's IOULoss(loss_type='giou') on (l, t, r, b) distances, weighted by centerness targets."""
    pred_left, pred_top, pred_right, pred_bottom = pred.unbind(1)
    target_left, target_top, target_right, target_bottom = target.unbind(1)
    target_area = (target_left + target_right) * (target_top + target_bottom)
    pred_area = (pred_left + pred_right) * (pred_top + pred_bottom)
    w_intersect = torch.min(pred_left, target_left) + torch.min(pred_right, target_right)
    g_w_intersect = torch.max(pred_left, target_left) + torch.max(pred_right, target_right)
    h_intersect = torch.min(pred_bottom, target_bottom) + torch.min(pred_top, target_top)
    g_h_intersect = torch.max(pred_bottom, target_bottom) + torch.max(pred_top, target_top)
    ac_union = g_w_intersect * g_h_intersect + 1e-7
    area_intersect = w_intersect * h_intersect
    area_union = target_area + pred_area - area_intersect
    ious = (area_intersect + 1.0) / (area_union + 1.0)
    gious = ious - (ac_union - area_union) / ac_union
    losses = 1 - gious
    return (losses * weight).sum() / weight.sum()


def centerness_target(reg_targets):
    left_right = reg_targets[:, [0, 2]]
    top_bottom = reg_targets[:, [1, 3]]
    c = (left_right.min(dim=-1)[0] / left_right.max(dim=-1)[0]) * (top_bottom.min(dim=-1)[0] / top_bottom.max(dim=-1)[0])
    return torch.sqrt(c)


def fcos_loss(outputs, targets):
    """FCOSLossComputation: focal / num_pos + GIoU (centerness-weighted) + centerness BCE / num_pos."""
    box_cls, box_regression, centerness = outputs
    labels, reg_targets = targets
    c = box_cls.shape[1]
    box_cls_flatten = box_cls.permute(0, 2, 3, 1).reshape(-1, c)
    box_regression_flatten = box_regression.permute(0, 2, 3, 1).reshape(-1, 4)
    centerness_flatten = centerness.reshape(-1)
    labels_flatten = labels.reshape(-1)
    reg_targets_flatten = reg_targets.reshape(-1, 4)
    pos_inds = torch.nonzero(labels_flatten > 0).squeeze(1)
    num_pos = max(pos_inds.numel(), 1.0)
    cls_loss = sigmoid_focal_loss(box_cls_flatten, labels_flatten.int()) / num_pos
    box_regression_flatten = box_regression_flatten[pos_inds]
    reg_targets_flatten = reg_targets_flatten[pos_inds]
    centerness_flatten = centerness_flatten[pos_inds]
    if pos_inds.numel() > 0:
        centerness_targets = centerness_target(reg_targets_flatten)
        reg_loss = giou_loss(box_regression_flatten, reg_targets_flatten, centerness_targets)
        centerness_loss = F.binary_cross_entropy_with_logits(centerness_flatten, centerness_targets, reduction="sum") / num_pos
    else:
        reg_loss = box_regression_flatten.sum()
        centerness_loss = centerness_flatten.sum()
    return cls_loss + reg_loss + centerness_loss


def make_data(gen: torch.Generator, count: int = COUNT):
    """Images with one or two coloured rectangles (class 1 red-ish, class 2 green-ish) on noise; FCOS targets per location."""
    images = 0.1 * torch.randn(count, 3, IMAGE, IMAGE, generator=gen) + 0.2
    labels = torch.zeros(count, FEAT, FEAT, dtype=torch.long)
    reg = torch.zeros(count, FEAT, FEAT, 4)
    centers = torch.arange(FEAT) * STRIDE + STRIDE // 2  # compute_locations: shifts + stride // 2
    ys, xs = torch.meshgrid(centers.float(), centers.float(), indexing="ij")
    for n in range(count):
        nboxes = int(torch.randint(1, 3, (1,), generator=gen))
        best_area = torch.full((FEAT, FEAT), float("inf"))
        for _ in range(nboxes):
            w, h = (torch.randint(5, 13, (2,), generator=gen)).tolist()
            x0 = int(torch.randint(0, IMAGE - w + 1, (1,), generator=gen))
            y0 = int(torch.randint(0, IMAGE - h + 1, (1,), generator=gen))
            cls = int(torch.randint(1, NUM_CLASSES + 1, (1,), generator=gen))
            colour = torch.tensor([0.9, 0.2, 0.2]) if cls == 1 else torch.tensor([0.2, 0.9, 0.3])
            images[n, :, y0:y0 + h, x0:x0 + w] = colour[:, None, None] + 0.1 * torch.randn(3, h, w, generator=gen)
            x1, y1 = x0 + w, y0 + h
            ltrb = torch.stack([xs - x0, ys - y0, x1 - xs, y1 - ys], dim=-1)
            inside = ltrb.min(dim=-1)[0] > 0
            area = float(w * h)
            take = inside & (area < best_area)  # ambiguous locations go to the smallest box
            best_area[take] = area
            labels[n][take] = cls
            reg[n][take] = ltrb[take]
    return images, (labels, reg)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, targets = make_data(gen)
    spec = {
        "model": TinyFCOS(),
        "batch": (images, targets),
        "loss_fn": fcos_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=1e-4)
    return spec
