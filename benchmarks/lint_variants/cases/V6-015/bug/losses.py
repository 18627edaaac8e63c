import torch
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=None, ignore_index=255):
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha
        self.ignore_index = ignore_index

    def forward(self, probs, target):
        valid = target != self.ignore_index
        target = target.clone()
        target[~valid] = 0
        pt = probs.gather(1, target.unsqueeze(1)).squeeze(1)
        logpt = torch.log(pt)
        loss = -((1 - pt) ** self.gamma) * logpt
        if self.alpha is not None:
            loss = loss * self.alpha.to(probs.device)[target]
        return loss[valid].mean()


class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0, ignore_index=255):
        super().__init__()
        self.smooth = smooth
        self.ignore_index = ignore_index

    def forward(self, probs, target):
        num_classes = probs.shape[1]
        valid = (target != self.ignore_index).unsqueeze(1).float()
        onehot = F.one_hot(target.clamp(0, num_classes - 1), num_classes).permute(0, 3, 1, 2).float()
        inter = (probs * onehot * valid).sum((0, 2, 3))
        denom = ((probs + onehot) * valid).sum((0, 2, 3))
        return 1 - ((2 * inter + self.smooth) / (denom + self.smooth)).mean()


class FocalDice(nn.Module):
    def __init__(self, w_focal=1.0, w_dice=1.0):
        super().__init__()
        self.focal = FocalLoss()
        self.dice = DiceLoss()
        self.w_focal, self.w_dice = w_focal, w_dice

    def forward(self, logits, target):
        probs = logits.softmax(dim=1)
        return self.w_focal * self.focal(probs, target) + self.w_dice * self.dice(probs, target)
