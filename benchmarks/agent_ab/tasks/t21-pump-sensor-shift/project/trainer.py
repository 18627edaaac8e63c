"""Training loop for the fault classifier."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from callbacks import Callback, CallbackList
from metrics import AverageMeter, confusion_matrix, report


@torch.no_grad()
def predict(model: nn.Module, loader) -> (torch.Tensor, torch.Tensor):
    model.eval()
    preds, targets = [], []
    for x, y in loader:
        preds.append(model(x).argmax(-1))
        targets.append(y)
    return torch.cat(preds), torch.cat(targets)


class Trainer:
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, classes: Sequence[str],
                 grad_clip: Optional[float] = None, callbacks: Optional[List[Callback]] = None):
        self.model, self.optimizer, self.classes = model, optimizer, list(classes)
        self.grad_clip = grad_clip
        self.callbacks = CallbackList(callbacks)
        self.global_step = 0
        self.should_stop = False
        self.history: List[Dict[str, float]] = []

    def train_epoch(self, loader) -> Dict[str, float]:
        self.model.train()
        loss_m = AverageMeter()
        for x, y in loader:
            loss = F.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.global_step += 1
            loss_m.update(loss.item(), len(y))
            self.callbacks.on_step_end(self, self.global_step, {"loss": loss.item()})
        return {"train_loss": loss_m.avg}

    def evaluate(self, loader) -> Dict[str, float]:
        p, t = predict(self.model, loader)
        cm = confusion_matrix(p, t, len(self.classes))
        return {f"val_{k}": v for k, v in report(cm, self.classes).items()}

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
