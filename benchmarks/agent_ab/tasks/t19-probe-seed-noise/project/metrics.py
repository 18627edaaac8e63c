"""Running averages and classification metrics."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import torch


class AverageMeter:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.total, self.count = 0.0, 0

    def update(self, value: float, n: int = 1) -> None:
        self.total += float(value) * n
        self.count += n

    @property
    def avg(self) -> float:
        return self.total / max(self.count, 1)


def accuracy(logits: torch.Tensor, targets: torch.Tensor) -> float:
    return (logits.argmax(dim=-1) == targets).float().mean().item()


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    idx = targets.long() * num_classes + preds.long()
    return torch.bincount(idx, minlength=num_classes * num_classes).reshape(num_classes, num_classes)


def per_class_f1(cm: torch.Tensor) -> torch.Tensor:
    tp = cm.diag().float()
    precision = tp / cm.sum(dim=0).clamp(min=1).float()
    recall = tp / cm.sum(dim=1).clamp(min=1).float()
    return 2 * precision * recall / (precision + recall).clamp(min=1e-12)


def macro_f1(cm: torch.Tensor) -> float:
    return per_class_f1(cm).mean().item()


def classification_report(cm: torch.Tensor, names: Optional[Sequence[str]] = None) -> List[Dict]:
    f1 = per_class_f1(cm)
    support = cm.sum(dim=1)
    return [{"class": names[i] if names else str(i), "f1": round(f1[i].item(), 4),
             "support": int(support[i].item())} for i in range(cm.shape[0])]
