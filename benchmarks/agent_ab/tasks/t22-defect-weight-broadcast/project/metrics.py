"""Classification metrics: confusion matrix, per-class recall/precision, macro F1."""
from __future__ import annotations

from typing import Dict, Sequence

import torch


class AverageMeter:
    def __init__(self) -> None:
        self.total, self.count = 0.0, 0

    def update(self, value: float, n: int = 1) -> None:
        self.total += float(value) * n
        self.count += n

    @property
    def avg(self) -> float:
        return self.total / max(self.count, 1)


def confusion_matrix(preds: torch.Tensor, targets: torch.Tensor, num_classes: int) -> torch.Tensor:
    idx = targets.long() * num_classes + preds.long()
    return torch.bincount(idx, minlength=num_classes * num_classes).reshape(num_classes, num_classes)


def per_class(cm: torch.Tensor) -> Dict[str, torch.Tensor]:
    tp = cm.diag().float()
    recall = tp / cm.sum(dim=1).clamp(min=1).float()
    precision = tp / cm.sum(dim=0).clamp(min=1).float()
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    return {"recall": recall, "precision": precision, "f1": f1}


def summary(cm: torch.Tensor, names: Sequence[str]) -> Dict[str, float]:
    pc = per_class(cm)
    out = {"acc": (cm.diag().sum() / cm.sum().clamp(min=1)).item(), "macro_f1": pc["f1"].mean().item()}
    for i, name in enumerate(names):
        out[f"recall_{name}"] = pc["recall"][i].item()
    return out
