import time

import torch
import torch.nn as nn


class Model(nn.Module):
    """Tiny Keras-style wrapper: compile() then fit()."""

    def compile(self, optimizer, loss, metrics=None, device="cpu"):
        self.optimizer = optimizer
        self.loss_fn = loss
        self.metrics = metrics or {}
        self.device = device
        self.to(device)

    def _run_batch(self, x, y, train):
        x, y = x.to(self.device), y.to(self.device)
        y_pred = self(x)
        loss = self.loss_fn(y_pred, y)
        if train:
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        logs = {"loss": loss.item()}
        for name, fn in self.metrics.items():
            logs[name] = fn(y_pred.detach(), y)
        return logs

    def fit(self, train_loader, epochs=1, validation_data=None, verbose=1):
        history = {}
        for epoch in range(epochs):
            start = time.time()
            self.train()
            sums, n = {}, 0
            for x, y in train_loader:
                logs = self._run_batch(x, y, train=True)
                for k, v in logs.items():
                    sums[k] = sums.get(k, 0.0) + v
                n += 1
            epoch_logs = {k: v / n for k, v in sums.items()}
            if validation_data is not None:
                epoch_logs.update({"val_" + k: v for k, v in self.evaluate(validation_data).items()})
            for k, v in epoch_logs.items():
                history.setdefault(k, []).append(v)
            if verbose:
                msg = " - ".join(f"{k}: {v:.4f}" for k, v in epoch_logs.items())
                print(f"Epoch {epoch + 1}/{epochs} - {time.time() - start:.0f}s - {msg}")
        return history

    @torch.no_grad()
    def evaluate(self, loader):
        self.eval()
        sums, n = {}, 0
        for x, y in loader:
            for k, v in self._run_batch(x, y, train=False).items():
                sums[k] = sums.get(k, 0.0) + v
            n += 1
        return {k: v / n for k, v in sums.items()}

    @torch.no_grad()
    def predict(self, x):
        self.eval()
        return self(x.to(self.device)).cpu()
