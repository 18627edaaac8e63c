"""Training loop with callbacks and best-epoch restore."""
from __future__ import annotations

import copy
from typing import Dict, List, Optional

import torch
from torch import nn

from callbacks import Callback, CallbackList
from metrics import AverageMeter, r2_score, rmse


@torch.no_grad()
def predict(model: nn.Module, loader) -> Dict[str, torch.Tensor]:
    model.eval()
    preds, targets = [], []
    for x, y in loader:
        preds.append(model(x))
        targets.append(y)
    return {"pred": torch.cat(preds), "target": torch.cat(targets)}


def evaluate_loader(model: nn.Module, loader) -> Dict[str, float]:
    out = predict(model, loader)
    return {"r2": r2_score(out["pred"], out["target"]), "rmse": rmse(out["pred"], out["target"])}


class Trainer:
    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer,
                 callbacks: Optional[List[Callback]] = None):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = nn.MSELoss()
        self.callbacks = CallbackList(callbacks)
        self.should_stop = False
        self.history: List[Dict[str, float]] = []
        self.best_state = None
        self.best_val = float("inf")

    def train_epoch(self, loader, epoch: int) -> float:
        self.model.train()
        meter = AverageMeter()
        for step, (x, y) in enumerate(loader):
            loss = self.loss_fn(self.model(x), y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            meter.update(loss.item(), len(x))
            self.callbacks.on_step_end(self, step, {"loss": loss.item()})
        return meter.avg

    def fit(self, train_loader, val_loader, epochs: int) -> List[Dict[str, float]]:
        self.callbacks.on_train_start(self)
        for epoch in range(1, epochs + 1):
            self.callbacks.on_epoch_start(self, epoch)
            train_loss = self.train_epoch(train_loader, epoch)
            val = evaluate_loader(self.model, val_loader)
            logs = {"epoch": epoch, "train_loss": train_loss, "val_rmse": val["rmse"],
                    "val_r2": val["r2"], "val_loss": val["rmse"] ** 2}
            self.history.append(logs)
            if logs["val_loss"] < self.best_val:
                self.best_val = logs["val_loss"]
                self.best_state = copy.deepcopy(self.model.state_dict())
            self.callbacks.on_epoch_end(self, epoch, logs)
            if self.should_stop:
                break
        if self.best_state is not None:
            self.model.load_state_dict(self.best_state)
        self.callbacks.on_train_end(self)
        return self.history
