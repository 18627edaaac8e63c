"""Losses. All take raw logits (the model has no softmax)."""
from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F


def weighted_cross_entropy(logits: torch.Tensor, target: torch.Tensor,
                           weight: Optional[torch.Tensor] = None,
                           label_smoothing: float = 0.0) -> torch.Tensor:
    """Cross-entropy with optional per-sample weights (weighted mean over the batch)."""
    per_sample = F.cross_entropy(logits, target, reduction="none", label_smoothing=label_smoothing)
    if weight is None:
        return per_sample.mean()
    return (per_sample * weight).mean()


def focal_loss(logits: torch.Tensor, target: torch.Tensor, gamma: float = 2.0,
               weight: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Focal loss (Lin et al.), kept for experiments; not used by default."""
    logp = F.log_softmax(logits, dim=-1).gather(1, target[:, None]).squeeze(1)
    loss = -((1 - logp.exp()) ** gamma) * logp
    if weight is not None:
        loss = loss * weight
    return loss.mean()
