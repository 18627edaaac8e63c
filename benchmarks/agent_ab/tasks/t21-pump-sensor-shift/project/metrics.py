"""Classification metrics."""
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


def report(cm: torch.Tensor, names: Sequence[str]) -> Dict[str, float]:
    tp = cm.diag().float()
    recall = tp / cm.sum(1).clamp(min=1).float()
    precision = tp / cm.sum(0).clamp(min=1).float()
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    out = {"acc": (tp.sum() / cm.sum().clamp(min=1)).item(), "macro_f1": f1.mean().item()}
    out.update({f"recall_{n}": recall[i].item() for i, n in enumerate(names)})
    return out


def format_confusion(cm: torch.Tensor, names: Sequence[str]) -> str:
    width = max(len(n) for n in names) + 2
    lines = [" " * width + "".join(f"{n[:10]:>12s}" for n in names)]
    for i, n in enumerate(names):
        lines.append(f"{n:<{width}s}" + "".join(f"{int(v):>12d}" for v in cm[i]))
    return "\n".join(lines)
