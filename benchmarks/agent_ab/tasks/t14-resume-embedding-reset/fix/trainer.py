"""Step-based trainer with warmup + cosine LR and checkpoint/resume support."""
from __future__ import annotations

import math
from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch import nn

from callbacks import Callback, CallbackList
from metrics import accuracy


def warmup_cosine(warmup: int, total: int):
    def fn(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))
    return fn


class Trainer:
    def __init__(self, model: nn.Module, optimizer, scheduler, max_steps: int,
                 callbacks: Optional[List[Callback]] = None, grad_clip: float = 1.0):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.max_steps = max_steps
        self.callbacks = CallbackList(callbacks)
        self.grad_clip = grad_clip
        self.global_step = 0
        self.should_stop = False
        self.loss_history: List[float] = []
        self.eval_history: List[Dict[str, float]] = []

    @torch.no_grad()
    def evaluate(self, x: torch.Tensor, y: torch.Tensor) -> Dict[str, float]:
        self.model.eval()
        logits = self.model(x)
        return {"val_loss": F.cross_entropy(logits, y).item(), "val_acc": accuracy(logits, y)}

    def train(self, stream, stop_after: Optional[int] = None) -> None:
        self.callbacks.on_train_start(self)
        for step, x, y in stream.iterate(self.global_step):
            if step > self.max_steps:
                break
            self.model.train()
            loss = F.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            logs = {"loss": loss.item(), "grad_norm": float(norm),
                    "lr": self.optimizer.param_groups[0]["lr"]}
            self.loss_history.append(loss.item())
            self.optimizer.step()
            self.scheduler.step()
            self.global_step = step
            # checkpoints written here hold the state after `step` updates
            self.callbacks.on_step_end(self, step, logs)
            if self.should_stop or (stop_after is not None and step >= stop_after):
                break
        self.callbacks.on_train_end(self)
