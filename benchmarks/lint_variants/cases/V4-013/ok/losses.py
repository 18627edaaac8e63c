import torch
import torch.nn as nn
import torch.nn.functional as F

LOSSES = {}


def register(name):
    def deco(cls):
        LOSSES[name] = cls
        return cls
    return deco


@register("bce")
class BCELoss(nn.Module):
    def __init__(self, pos_weight=None, **kwargs):
        super().__init__()
        self.pos_weight = pos_weight

    def forward(self, logits, target):
        pw = None if self.pos_weight is None else torch.tensor(self.pos_weight, device=logits.device)
        return F.binary_cross_entropy_with_logits(logits, target, pos_weight=pw)


@register("focal")
class SigmoidFocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0, reduction="mean", **kwargs):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits, target):
        p = torch.sigmoid(logits).clamp(1e-6, 1 - 1e-6)
        pos = -self.alpha * (1 - p) ** self.gamma * target * torch.log(p)
        neg = -(1 - self.alpha) * p ** self.gamma * (1 - target) * torch.log(1 - p)
        loss = pos + neg
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            return loss.sum()
        return loss


@register("dice_bce")
class DiceBCELoss(nn.Module):
    def __init__(self, smooth=1.0, bce_weight=0.5, **kwargs):
        super().__init__()
        self.smooth = smooth
        self.bce_weight = bce_weight

    def forward(self, logits, target):
        prob = torch.sigmoid(logits).flatten(1)
        t = target.flatten(1)
        inter = (prob * t).sum(1)
        dice = 1 - (2 * inter + self.smooth) / (prob.sum(1) + t.sum(1) + self.smooth)
        bce = F.binary_cross_entropy_with_logits(logits, target)
        return self.bce_weight * bce + (1 - self.bce_weight) * dice.mean()


def build_loss(cfg):
    cfg = dict(cfg)
    name = cfg.pop("type")
    return LOSSES[name](**cfg)
