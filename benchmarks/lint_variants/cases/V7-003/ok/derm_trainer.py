import logging
from typing import Dict, List

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from base_trainer import BaseTrainer

logger = logging.getLogger(__name__)

HAM_CLASSES = ["akiec", "bcc", "bkl", "df", "mel", "nv", "vasc"]


class FocalLoss(nn.Module):
    def __init__(self, alpha: torch.Tensor = None, gamma: float = 2.0):
        super().__init__()
        self.register_buffer("alpha", alpha if alpha is not None else torch.tensor([]))
        self.gamma = gamma

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        weight = self.alpha if self.alpha.numel() else None
        ce = F.cross_entropy(logits, target, weight=weight, reduction="none")
        pt = torch.exp(-F.cross_entropy(logits, target, reduction="none"))
        return ((1 - pt) ** self.gamma * ce).mean()


class DermTrainer(BaseTrainer):
    monitor = "val_bacc"
    monitor_mode = "max"

    def __init__(self, *args, class_counts: List[int], tta: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        counts = torch.tensor(class_counts, dtype=torch.float32)
        alpha = (counts.sum() / (len(counts) * counts)).to(self.device)
        self.criterion = FocalLoss(alpha=alpha, gamma=2.0).to(self.device)
        self.tta = tta
        self._probs: List[np.ndarray] = []
        self._labels: List[np.ndarray] = []

    def train_step(self, batch) -> Dict[str, torch.Tensor]:
        images, labels = batch
        logits = self.model(images)
        return {"loss": self.criterion(logits, labels)}

    def eval_step(self, batch) -> Dict[str, torch.Tensor]:
        images, labels = batch
        logits = self.model(images)
        if self.tta:
            logits = 0.5 * (logits + self.model(torch.flip(images, dims=[3])))
        probs = logits.softmax(dim=1)
        self._probs.append(probs.float().cpu().numpy())
        self._labels.append(labels.cpu().numpy())
        return {"loss": self.criterion(logits, labels),
                "acc": (probs.argmax(1) == labels).float().mean()}

    def aggregate(self, outputs):
        metrics = super().aggregate(outputs)
        probs = np.concatenate(self._probs)
        labels = np.concatenate(self._labels)
        metrics["bacc"] = float(balanced_accuracy_score(labels, probs.argmax(1)))
        try:
            metrics["auc"] = float(roc_auc_score(labels, probs, multi_class="ovr"))
        except ValueError:
            metrics["auc"] = float("nan")
        mel = HAM_CLASSES.index("mel")
        metrics["mel_sens"] = float(((probs.argmax(1) == mel) & (labels == mel)).sum() / max((labels == mel).sum(), 1))
        self._probs, self._labels = [], []
        return metrics

    def on_validation_end(self, metrics: Dict[str, float]) -> None:
        if metrics.get("val_mel_sens", 1.0) < 0.5:
            logger.warning("melanoma sensitivity below 0.5 (%.3f)", metrics["val_mel_sens"])
