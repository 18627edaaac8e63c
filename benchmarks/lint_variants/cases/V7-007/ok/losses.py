import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftDiceLoss(nn.Module):
    def __init__(self, ignore_index: int = 255, smooth: float = 1.0):
        super().__init__()
        self.ignore_index = ignore_index
        self.smooth = smooth

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        num_classes = logits.shape[1]
        valid = (target != self.ignore_index).unsqueeze(1).float()
        probs = logits.softmax(dim=1) * valid
        onehot = F.one_hot(target.clamp(0, num_classes - 1), num_classes).permute(0, 3, 1, 2).float() * valid
        dims = (0, 2, 3)
        inter = (probs * onehot).sum(dims)
        card = probs.sum(dims) + onehot.sum(dims)
        dice = (2 * inter + self.smooth) / (card + self.smooth)
        present = onehot.sum(dims) > 0
        return 1 - dice[present].mean()


class CEDiceLoss(nn.Module):
    def __init__(self, dice_weight: float = 0.5, ignore_index: int = 255, class_weights=None):
        super().__init__()
        self.dice_weight = dice_weight
        self.ignore_index = ignore_index
        self.register_buffer("class_weights", class_weights if class_weights is not None else torch.empty(0))
        self.dice = SoftDiceLoss(ignore_index)

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        weight = self.class_weights if self.class_weights.numel() else None
        ce = F.cross_entropy(logits, target, weight=weight, ignore_index=self.ignore_index)
        return (1 - self.dice_weight) * ce + self.dice_weight * self.dice(logits, target)


@torch.no_grad()
def confusion(pred: torch.Tensor, target: torch.Tensor, num_classes: int, ignore_index: int = 255):
    mask = target != ignore_index
    idx = target[mask] * num_classes + pred[mask]
    return torch.bincount(idx, minlength=num_classes ** 2).reshape(num_classes, num_classes)


def miou_from_confusion(cm: torch.Tensor) -> torch.Tensor:
    inter = cm.diag().float()
    union = cm.sum(0).float() + cm.sum(1).float() - inter
    return inter / union.clamp_min(1)
