import logging
import os
from abc import ABC, abstractmethod

import torch

logger = logging.getLogger(__name__)


class BaseTrainer(ABC):
    def __init__(self, model, optimizer, device, save_dir, log_interval=50):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.device = device
        self.save_dir = save_dir
        self.log_interval = log_interval
        self.epoch = 0
        self.best_val = float("inf")
        os.makedirs(save_dir, exist_ok=True)

    @abstractmethod
    def _train_step(self, batch):
        """Run forward/backward/step on one batch and return the loss."""

    @abstractmethod
    def _eval_step(self, batch):
        """Return the (summed) loss and the token count of one batch."""

    def train_epoch(self, loader):
        self.model.train()
        total_loss = 0.0
        for i, batch in enumerate(loader):
            loss = self._train_step(batch)
            total_loss += loss
            if (i + 1) % self.log_interval == 0:
                logger.info("epoch %d [%d/%d] running loss %.4f", self.epoch, i + 1, len(loader), total_loss / (i + 1))
        return total_loss / max(len(loader), 1)

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        total, count = 0.0, 0
        for batch in loader:
            loss_sum, n = self._eval_step(batch)
            total += loss_sum
            count += n
        return total / max(count, 1)

    def save(self, name):
        torch.save({"epoch": self.epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, os.path.join(self.save_dir, name))

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(self.epoch, epochs):
            self.epoch = epoch
            train_loss = self.train_epoch(train_loader)
            val_loss = self.validate(val_loader)
            logger.info("epoch %d train %.4f val %.4f", epoch, float(train_loss), val_loss)
            self.save("last.pt")
            if val_loss < self.best_val:
                self.best_val = val_loss
                self.save("best.pt")
