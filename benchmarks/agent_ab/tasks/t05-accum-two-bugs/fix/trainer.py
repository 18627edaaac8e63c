"""Training loop with gradient accumulation."""
import math

import torch


class Trainer:
    def __init__(self, model, criterion, optimizer, accum_steps=1, log_every=0):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.accum_steps = accum_steps
        self.log_every = log_every
        self.step = 0

    def train_epoch(self, loader):
        """One pass over `loader`; returns the mean micro-batch loss."""
        self.model.train()
        total, count = 0.0, 0
        for i, (x, y) in enumerate(loader):
            loss = self.criterion(self.model(x), y)
            (loss / self.accum_steps).backward()
            total += loss.item()
            count += 1
            if (i + 1) % self.accum_steps == 0 or (i + 1) == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.step += 1
                if self.log_every and self.step % self.log_every == 0:
                    print(f"  step {self.step:4d}  loss {loss.item():.4f}")
        return total / max(count, 1)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = n = 0
        for x, y in loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
            n += len(y)
        return correct / n

    def fit(self, train_loader, val_loader, epochs, verbose=True):
        history = []
        self.optimizer.zero_grad()
        for epoch in range(epochs):
            train_loss = self.train_epoch(train_loader)
            val_acc = self.evaluate(val_loader)
            history.append({"epoch": epoch, "train_loss": train_loss, "val_acc": val_acc})
            if verbose:
                print(f"epoch {epoch}: train loss {train_loss:.4f}  val acc {val_acc:.3f}")
            if not math.isfinite(train_loss):
                if verbose:
                    print("non-finite loss, stopping")
                break
        return history
