"""Training callbacks: progress logging, early stopping, a NaN guard, best-checkpoint saving.

Every hook receives the trainer; ``on_epoch_end`` also gets the epoch's logs. A callback
may set ``trainer.should_stop = True``.
"""
from __future__ import annotations

import math
import os
from typing import Dict, Optional

import torch


class Callback:
    def on_train_start(self, trainer) -> None:
        pass

    def on_epoch_start(self, trainer, epoch: int) -> None:
        pass

    def on_step_end(self, trainer, step: int, logs: Dict[str, float]) -> None:
        pass

    def on_epoch_end(self, trainer, epoch: int, logs: Dict[str, float]) -> None:
        pass

    def on_train_end(self, trainer) -> None:
        pass


class CallbackList(Callback):
    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])

    def __getattribute__(self, name):
        if name.startswith("on_"):
            def call(*args, **kwargs):
                for cb in object.__getattribute__(self, "callbacks"):
                    getattr(cb, name)(*args, **kwargs)
            return call
        return object.__getattribute__(self, name)


class ProgressLogger(Callback):
    def __init__(self, logger=None, every: int = 1, verbose: bool = True):
        self.logger, self.every, self.verbose = logger, max(int(every or 1), 1), verbose

    def on_epoch_end(self, trainer, epoch, logs):
        if self.verbose and self.logger is not None and epoch % self.every == 0:
            from logging_utils import format_metrics
            self.logger.info("epoch %d %s", epoch, format_metrics({k: v for k, v in logs.items() if k != "epoch"}))


class EarlyStopping(Callback):
    def __init__(self, monitor: str = "val_loss", mode: str = "min", patience: int = 0, min_delta: float = 0.0):
        self.monitor, self.mode, self.patience, self.min_delta = monitor, mode, patience, min_delta
        self.best = math.inf if mode == "min" else -math.inf
        self.bad_epochs = 0

    def on_epoch_end(self, trainer, epoch, logs):
        if not self.patience or self.monitor not in logs:
            return
        value = logs[self.monitor]
        better = value < self.best - self.min_delta if self.mode == "min" else value > self.best + self.min_delta
        if better:
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                trainer.should_stop = True


class NaNGuard(Callback):
    """Stops training as soon as a step loss is not finite."""

    def on_step_end(self, trainer, step, logs):
        loss = logs.get("loss")
        if loss is not None and not math.isfinite(loss):
            trainer.should_stop = True
            trainer.stop_reason = f"non-finite loss at step {step}"


class BestCheckpoint(Callback):
    def __init__(self, path: Optional[str], monitor: str = "val_loss", mode: str = "min"):
        self.path, self.monitor, self.mode = path, monitor, mode
        self.best = math.inf if mode == "min" else -math.inf

    def on_epoch_end(self, trainer, epoch, logs):
        if not self.path or self.monitor not in logs:
            return
        value = logs[self.monitor]
        if (value < self.best) if self.mode == "min" else (value > self.best):
            self.best = value
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            torch.save(trainer.model.state_dict(), self.path)
