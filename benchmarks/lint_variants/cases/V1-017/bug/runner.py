import logging
import os

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class Runner:
    def __init__(self, model, cfg, device):
        self.model = model.to(device)
        self.cfg = cfg
        self.device = device
        self.criterion = nn.CrossEntropyLoss(label_smoothing=cfg.get("label_smoothing", 0.0))
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=cfg["epochs"])
        self.best_acc = 0.0

    def _train_epoch(self, loader):
        total_loss, n = 0.0, 0
        for specs, labels in loader:
            specs, labels = specs.to(self.device), labels.to(self.device)
            loss = self.criterion(self.model(specs), labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total_loss += loss.item() * labels.size(0)
            n += labels.size(0)
        self.scheduler.step()
        return total_loss / n

    @torch.no_grad()
    def _validate(self, loader):
        self.model.eval()
        correct, n = 0, 0
        for specs, labels in loader:
            specs, labels = specs.to(self.device), labels.to(self.device)
            correct += (self.model(specs).argmax(-1) == labels).sum().item()
            n += labels.size(0)
        return correct / n

    def fit(self, train_loader, val_loader):
        self.model.train()
        for epoch in range(1, self.cfg["epochs"] + 1):
            loss = self._train_epoch(train_loader)
            acc = self._validate(val_loader)
            logger.info("epoch %d | loss %.4f | val acc %.4f", epoch, loss, acc)
            if acc > self.best_acc:
                self.best_acc = acc
                torch.save(self.model.state_dict(), os.path.join(self.cfg["out_dir"], "best.pt"))
        return self.best_acc
