"""Classification losses."""
import torch
import torch.nn.functional as F
from torch import nn


class LabelSmoothingCrossEntropy(nn.Module):
    """Cross-entropy against smoothed one-hot targets.

    The target distribution puts 1 - eps on the true class and spreads eps
    uniformly over all classes.
    """

    def __init__(self, eps=0.1):
        super().__init__()
        self.eps = eps

    def forward(self, logits, target):
        log_probs = F.log_softmax(logits, dim=-1)
        n_classes = logits.size(-1)
        with torch.no_grad():
            soft = torch.full_like(log_probs, self.eps / n_classes)
            soft.scatter_(1, target.unsqueeze(1), 1.0 - self.eps + self.eps / n_classes)
        return torch.sum(-soft * log_probs)


def build_criterion(cfg):
    eps = cfg["train"].get("label_smoothing", 0.0)
    if eps > 0:
        return LabelSmoothingCrossEntropy(eps)
    return nn.CrossEntropyLoss()
