"""Training loop: weighted cross-entropy on (x, y, w) batches, evaluation every epoch."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import torch
from torch import nn

from callbacks import Callback, CallbackList
from losses import weighted_cross_entropy
from metrics import AverageMeter, confusion_matrix, summary


class Trainer:
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, class_names: Sequence[str],
                 grad_clip: Optional[float] = None, label_smoothing: float = 0.0,
                 callbacks: Optional[List[Callback]] = None):
        self.model, self.optimizer = model, optimizer
        self.class_names = list(class_names)
        self.grad_clip, self.label_smoothing = grad_clip, label_smoothing
        self.callbacks = CallbackList(callbacks)
        self.global_step = 0
        self.should_stop = False
        self.history: List[Dict[str, float]] = []

    def batch_loss(self, batch):
        x, y, w = batch
        logits = self.model(x)
        return weighted_cross_entropy(logits, y, w, self.label_smoothing), logits

    def train_epoch(self, loader) -> Dict[str, float]:
        self.model.train()
        loss_m = AverageMeter()
        for batch in loader:
            loss, _ = self.batch_loss(batch)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.global_step += 1
            loss_m.update(loss.item(), len(batch[0]))
            self.callbacks.on_step_end(self, self.global_step, {"loss": loss.item()})
        return {"train_loss": loss_m.avg}

    @torch.no_grad()
    def predict(self, loader) -> (torch.Tensor, torch.Tensor):
        self.model.eval()
        preds, targets = [], []
        for x, y in loader:
            preds.append(self.model(x).argmax(-1))
            targets.append(y)
        return torch.cat(preds), torch.cat(targets)

    def evaluate(self, loader) -> Dict[str, float]:
        p, t = self.predict(loader)
        cm = confusion_matrix(p, t, len(self.class_names))
        return {f"val_{k}": v for k, v in summary(cm, self.class_names).items()}

    def fit(self, train_loader, val_loader, epochs: int) -> List[Dict[str, float]]:
        self.callbacks.on_train_start(self)
        for epoch in range(1, epochs + 1):
            self.callbacks.on_epoch_start(self, epoch)
            logs = {"epoch": epoch, **self.train_epoch(train_loader), **self.evaluate(val_loader)}
            self.history.append(logs)
            self.callbacks.on_epoch_end(self, epoch, logs)
            if self.should_stop:
                break
        self.callbacks.on_train_end(self)
        return self.history
