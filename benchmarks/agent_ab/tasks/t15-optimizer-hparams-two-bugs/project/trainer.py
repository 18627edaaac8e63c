"""Epoch loop."""
from __future__ import annotations

from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch import nn

from callbacks import Callback, CallbackList
from metrics import AverageMeter, accuracy


class Trainer:
    def __init__(self, model: nn.Module, optimizer, callbacks: Optional[List[Callback]] = None):
        self.model, self.optimizer = model, optimizer
        self.callbacks = CallbackList(callbacks)
        self.should_stop = False
        self.step = 0

    @torch.no_grad()
    def evaluate(self, loader) -> Dict[str, float]:
        self.model.eval()
        loss, acc = AverageMeter(), AverageMeter()
        for x, y in loader:
            logits = self.model(x)
            loss.update(F.cross_entropy(logits, y).item(), len(y))
            acc.update(accuracy(logits, y), len(y))
        return {"val_loss": loss.avg, "val_acc": acc.avg}

    def fit(self, train_loader, val_loader, epochs: int) -> List[Dict[str, float]]:
        history = []
        self.callbacks.on_train_start(self)
        for epoch in range(1, epochs + 1):
            self.model.train()
            meter = AverageMeter()
            for x, y in train_loader:
                loss = F.cross_entropy(self.model(x), y)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.step += 1
                meter.update(loss.item(), len(y))
                self.callbacks.on_step_end(self, self.step, {"loss": loss.item()})
            logs = {"epoch": epoch, "train_loss": meter.avg, **self.evaluate(val_loader)}
            history.append(logs)
            self.callbacks.on_epoch_end(self, epoch, logs)
            if self.should_stop:
                break
        self.callbacks.on_train_end(self)
        return history
