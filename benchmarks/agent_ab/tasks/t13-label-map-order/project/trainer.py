"""Minimal epoch loop with callbacks."""
from __future__ import annotations

from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from callbacks import Callback, CallbackList
from metrics import AverageMeter, accuracy, confusion_matrix, macro_f1


@torch.no_grad()
def evaluate(model: nn.Module, ids: torch.Tensor, labels: torch.Tensor, num_classes: int) -> Dict:
    model.eval()
    logits = model(ids)
    cm = confusion_matrix(logits.argmax(1), labels, num_classes)
    return {"loss": F.cross_entropy(logits, labels).item(), "acc": accuracy(logits, labels),
            "macro_f1": macro_f1(cm), "confusion": cm}


class Trainer:
    def __init__(self, model: nn.Module, optimizer, num_classes: int,
                 callbacks: Optional[List[Callback]] = None):
        self.model, self.optimizer, self.num_classes = model, optimizer, num_classes
        self.callbacks = CallbackList(callbacks)
        self.should_stop = False
        self.step = 0

    def fit(self, train, val, epochs: int, batch_size: int, seed: int) -> List[Dict]:
        loader = DataLoader(TensorDataset(*train), batch_size=batch_size, shuffle=True,
                            generator=torch.Generator().manual_seed(seed))
        history = []
        self.callbacks.on_train_start(self)
        for epoch in range(1, epochs + 1):
            self.model.train()
            meter = AverageMeter()
            for ids, y in loader:
                loss = F.cross_entropy(self.model(ids), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.step += 1
                meter.update(loss.item(), len(y))
                self.callbacks.on_step_end(self, self.step, {"loss": loss.item()})
            res = evaluate(self.model, *val, self.num_classes)
            logs = {"epoch": epoch, "train_loss": meter.avg, "val_loss": res["loss"],
                    "val_acc": res["acc"], "val_macro_f1": res["macro_f1"]}
            history.append(logs)
            self.callbacks.on_epoch_end(self, epoch, logs)
            if self.should_stop:
                break
        self.callbacks.on_train_end(self)
        return history
