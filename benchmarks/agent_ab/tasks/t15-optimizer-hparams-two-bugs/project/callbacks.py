"""Training callbacks: a small event system used by the trainer."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from logging_utils import format_metrics, get_logger

log = get_logger("callbacks")


class Callback:
    def on_train_start(self, trainer) -> None: ...
    def on_epoch_start(self, trainer, epoch: int) -> None: ...
    def on_step_end(self, trainer, step: int, logs: Dict[str, Any]) -> None: ...
    def on_epoch_end(self, trainer, epoch: int, logs: Dict[str, Any]) -> None: ...
    def on_train_end(self, trainer) -> None: ...


class CallbackList:
    def __init__(self, callbacks: Optional[List[Callback]] = None):
        self.callbacks = list(callbacks or [])

    def __getattr__(self, name: str):
        if not name.startswith("on_"):
            raise AttributeError(name)

        def fire(*args, **kwargs):
            for cb in self.callbacks:
                getattr(cb, name)(*args, **kwargs)
        return fire


class ProgressLogger(Callback):
    def __init__(self, every: int = 50, verbose: bool = True):
        self.every = every
        self.verbose = verbose

    def on_step_end(self, trainer, step, logs):
        if self.verbose and self.every and step % self.every == 0:
            log.info("step %d %s", step, format_metrics(logs))

    def on_epoch_end(self, trainer, epoch, logs):
        if self.verbose:
            log.info("epoch %d %s", epoch, format_metrics(logs))


class NaNGuard(Callback):
    """Stops training when the loss stops being finite."""

    def on_step_end(self, trainer, step, logs):
        loss = logs.get("loss")
        if loss is not None and not math.isfinite(loss):
            log.warning("non-finite loss at step %d, stopping", step)
            trainer.should_stop = True


class EarlyStopping(Callback):
    def __init__(self, monitor: str = "val_loss", patience: int = 5, mode: str = "min"):
        self.monitor, self.patience, self.mode = monitor, patience, mode
        self.best = math.inf if mode == "min" else -math.inf
        self.bad_epochs = 0

    def on_epoch_end(self, trainer, epoch, logs):
        value = logs.get(self.monitor)
        if value is None:
            return
        better = value < self.best if self.mode == "min" else value > self.best
        if better:
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                log.info("early stopping at epoch %d (%s=%.4f)", epoch, self.monitor, self.best)
                trainer.should_stop = True
