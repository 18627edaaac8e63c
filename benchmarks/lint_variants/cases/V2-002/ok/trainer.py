import os
from collections import defaultdict

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, device, ckpt_dir="checkpoints"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device
        self.criterion = nn.MSELoss()
        self.ckpt_dir = ckpt_dir
        self.history = defaultdict(list)
        self.best_val = float("inf")
        os.makedirs(ckpt_dir, exist_ok=True)

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            pred = self.model(x)
            loss = self.criterion(pred, y)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.history["train_step_loss"].append(loss.item())
        n = len(self.train_loader)
        return sum(self.history["train_step_loss"][-n:]) / n

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total, count = 0.0, 0
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            pred = self.model(x)
            total += self.criterion(pred, y).item() * x.size(0)
            count += x.size(0)
        return total / count

    def fit(self, epochs):
        for epoch in range(1, epochs + 1):
            train_loss = self.train_epoch()
            val_loss = self.validate()
            self.history["val_loss"].append(val_loss)
            print(f"[{epoch:03d}] train {float(train_loss):.5f}  val {val_loss:.5f}")
            if val_loss < self.best_val:
                self.best_val = val_loss
                torch.save(self.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
        return self.history
