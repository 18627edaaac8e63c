"""Training loop with gradient accumulation."""
from __future__ import annotations

from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch import nn

from callbacks import Callback, CallbackList
from metrics import AverageMeter, accuracy
from utils import AccumulationPlan


class Trainer:
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, plan: AccumulationPlan,
                 grad_clip: Optional[float] = None, callbacks: Optional[List[Callback]] = None):
        self.model = model
        self.optimizer = optimizer
        self.plan = plan
        self.grad_clip = grad_clip
        self.callbacks = CallbackList(callbacks)
        self.global_step = 0
        self.should_stop = False
        self.history: List[Dict[str, float]] = []

    def _optimizer_step(self) -> float:
        if self.grad_clip:
            norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        else:
            norm = torch.norm(torch.stack([p.grad.norm() for p in self.model.parameters()
                                           if p.grad is not None]))
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.global_step += 1
        return float(norm)

    def train_epoch(self, loader) -> Dict[str, float]:
        self.model.train()
        loss_meter, acc_meter, norm_meter = AverageMeter(), AverageMeter(), AverageMeter()
        self.optimizer.zero_grad(set_to_none=True)
        for micro_step, (x, y) in enumerate(loader):
            logits = self.model(x)
            loss = F.cross_entropy(logits, y)
            (loss * self.plan.loss_scale).backward()
            loss_meter.update(loss.item(), len(y))
            acc_meter.update(accuracy(logits, y), len(y))
            if self.plan.is_step_boundary(micro_step):
                norm = self._optimizer_step()
                norm_meter.update(norm)
                self.callbacks.on_step_end(self, self.global_step,
                                           {"loss": loss.item(), "grad_norm": norm})
        return {"train_loss": loss_meter.avg, "train_acc": acc_meter.avg,
                "grad_norm": norm_meter.avg}

    @torch.no_grad()
    def evaluate(self, loader) -> Dict[str, float]:
        self.model.eval()
        loss_meter, acc_meter = AverageMeter(), AverageMeter()
        for x, y in loader:
            logits = self.model(x)
            loss_meter.update(F.cross_entropy(logits, y).item(), len(y))
            acc_meter.update(accuracy(logits, y), len(y))
        return {"val_loss": loss_meter.avg, "val_acc": acc_meter.avg}

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
