import torch
import torch.nn as nn


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=None, ignore_index=255):
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha
        self.ignore_index = ignore_index

    def forward(self, probs, target):
        # probs: (N, C, H, W) class probabilities, target: (N, H, W)
        valid = target != self.ignore_index
        target = target.clone()
        target[~valid] = 0
        pt = probs.gather(1, target.unsqueeze(1)).squeeze(1)
        logpt = torch.log(pt)
        loss = -((1 - pt) ** self.gamma) * logpt
        if self.alpha is not None:
            loss = loss * self.alpha.to(probs.device)[target]
        return loss[valid].mean()


def build_criterion(cfg, class_weights=None):
    if cfg.loss == "focal":
        return FocalLoss(gamma=cfg.gamma, alpha=class_weights, ignore_index=cfg.ignore_index)
    raise ValueError(f"unknown loss {cfg.loss}")
