"""Training loop: one optimizer step per batch, evaluation after every epoch."""
from __future__ import annotations

from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch import nn

from callbacks import Callback, CallbackList
from metrics import AverageMeter, accuracy, confusion_matrix, macro_f1


class Trainer:
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, num_classes: int,
                 grad_clip: Optional[float] = None, callbacks: Optional[List[Callback]] = None):
        self.model, self.optimizer, self.num_classes = model, optimizer, num_classes
        self.grad_clip = grad_clip
        self.callbacks = CallbackList(callbacks)
        self.global_step = 0
        self.should_stop = False
        self.history: List[Dict[str, float]] = []

    def train_epoch(self, loader) -> Dict[str, float]:
        self.model.train()
        loss_m, acc_m = AverageMeter(), AverageMeter()
        for x, y in loader:
            logits = self.model(x)
            loss = F.cross_entropy(logits, y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.global_step += 1
            loss_m.update(loss.item(), len(y))
            acc_m.update(accuracy(logits, y), len(y))
            self.callbacks.on_step_end(self, self.global_step, {"loss": loss.item()})
        return {"train_loss": loss_m.avg, "train_acc": acc_m.avg}

    @torch.no_grad()
    def evaluate(self, loader) -> Dict[str, float]:
        self.model.eval()
        loss_m = AverageMeter()
        preds, targets = [], []
        for x, y in loader:
            logits = self.model(x)
            loss_m.update(F.cross_entropy(logits, y).item(), len(y))
            preds.append(logits.argmax(-1))
            targets.append(y)
        p, t = torch.cat(preds), torch.cat(targets)
        cm = confusion_matrix(p, t, self.num_classes)
        return {"val_loss": loss_m.avg, "val_acc": (p == t).float().mean().item(), "val_macro_f1": macro_f1(cm)}

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
