"""Step-based training loop."""
import math

import torch
from torch import nn

from callbacks import CallbackList
from metrics import evaluate, format_metrics
from utils import AverageMeter


class Trainer:
    def __init__(self, model, optimizer, scheduler=None, loss_fn=None, grad_clip=None,
                 callbacks=None, logger=None, log_every=100, eval_every=500):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loss_fn = loss_fn or nn.MSELoss()
        self.grad_clip = grad_clip
        self.callbacks = CallbackList(callbacks)
        self.logger = logger
        self.log_every = log_every
        self.eval_every = eval_every

    def current_lr(self):
        return self.optimizer.defaults["lr"]

    def train_step(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        if self.grad_clip:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()
        return loss.item()

    def fit(self, train_iter, val_loader, steps):
        state = {"step": 0, "metrics": {}, "stop": False}
        self.callbacks.on_train_begin(state)
        meter = AverageMeter()
        self.model.train()
        for step in range(1, steps + 1):
            x, y = next(train_iter)
            loss = self.train_step(x, y)
            meter.update(loss, len(x))
            state.update(step=step, loss=loss)
            self.callbacks.on_step_end(state)
            if self.logger and self.log_every and step % self.log_every == 0:
                self.logger.info("step %5d  train loss %.4f  lr %.2e", step, meter.avg, self.current_lr())
                meter.reset()
            if self.eval_every and (step % self.eval_every == 0 or step == steps):
                if math.isfinite(loss):
                    state["metrics"] = {"val_" + k: v for k, v in evaluate(self.model, val_loader).items()}
                else:
                    state["metrics"] = {"val_mse": float("nan")}
                state["metrics"]["train_loss"] = loss
                self.callbacks.on_eval_end(state)
                if self.logger:
                    self.logger.info("step %5d  %s", step, format_metrics(state["metrics"]))
            if state["stop"]:
                if self.logger:
                    self.logger.warning("stopping: %s", state.get("stop_reason", "callback"))
                break
        self.callbacks.on_train_end(state)
        return state
