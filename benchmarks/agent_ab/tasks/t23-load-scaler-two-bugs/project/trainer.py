"""Training loop: MSE on the transformed target; validation in kWh after every epoch."""
from __future__ import annotations

from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch import nn

from callbacks import Callback, CallbackList
from evaluate import evaluate
from metrics import AverageMeter


class Trainer:
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, target_scaler,
                 grad_clip: Optional[float] = None, callbacks: Optional[List[Callback]] = None):
        self.model, self.optimizer, self.target_scaler = model, optimizer, target_scaler
        self.grad_clip = grad_clip
        self.callbacks = CallbackList(callbacks)
        self.global_step = 0
        self.should_stop = False
        self.history: List[Dict[str, float]] = []

    def train_epoch(self, loader) -> Dict[str, float]:
        self.model.train()
        loss_m = AverageMeter()
        for x, z, _ in loader:
            loss = F.mse_loss(self.model(x), z)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.global_step += 1
            loss_m.update(loss.item(), len(z))
            self.callbacks.on_step_end(self, self.global_step, {"loss": loss.item()})
        return {"train_loss": loss_m.avg}

    def fit(self, train_loader, val_loader, epochs: int) -> List[Dict[str, float]]:
        self.callbacks.on_train_start(self)
        for epoch in range(1, epochs + 1):
            self.callbacks.on_epoch_start(self, epoch)
            logs = {"epoch": epoch, **self.train_epoch(train_loader),
                    **evaluate(self.model, val_loader, self.target_scaler)}
            self.history.append(logs)
            self.callbacks.on_epoch_end(self, epoch, logs)
            if self.should_stop:
                break
        self.callbacks.on_train_end(self)
        return self.history
