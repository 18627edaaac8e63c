"""Epoch-based trainer with optional CPU autocast (bfloat16)."""
import math

import torch

from callbacks import CallbackList
from metrics import evaluate, format_metrics
from utils import AverageMeter

_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


class Trainer:
    def __init__(self, model, loss_fn, optimizer, scaler, amp=True, amp_dtype="bfloat16",
                 callbacks=None, logger=None, log_every=50):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.scaler = scaler
        self.amp = bool(amp)
        self.amp_dtype = _DTYPES[amp_dtype]
        self.callbacks = CallbackList(callbacks)
        self.logger = logger
        self.log_every = log_every
        self.step = 0

    def autocast(self):
        return torch.autocast("cpu", dtype=self.amp_dtype, enabled=self.amp)

    def train_step(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        with self.autocast():
            pred = self.model(x)
            loss = self.loss_fn(pred, y)
        loss.backward()
        self.optimizer.step()
        self.step += 1
        return loss.item()

    def fit(self, train_loader, val_loader, epochs):
        state = {"step": 0, "epoch": 0, "metrics": {}, "stop": False}
        self.callbacks.on_train_begin(state)
        for epoch in range(epochs):
            meter = AverageMeter()
            for x, y in train_loader:
                loss = self.train_step(x, y)
                meter.update(loss, len(x))
                state.update(step=self.step, epoch=epoch, loss=loss)
                self.callbacks.on_step_end(state)
                if self.logger and self.log_every and self.step % self.log_every == 0:
                    self.logger.debug("step %5d  loss %.4f", self.step, loss)
                if state["stop"]:
                    break
            metrics = evaluate(self.model, val_loader, self.scaler)
            metrics["train_loss"] = meter.avg
            state["metrics"] = metrics
            self.callbacks.on_eval_end(state)
            if self.logger:
                self.logger.info("epoch %2d  %s", epoch, format_metrics(metrics))
            if state["stop"] or not math.isfinite(meter.avg):
                break
        self.callbacks.on_train_end(state)
        return state
