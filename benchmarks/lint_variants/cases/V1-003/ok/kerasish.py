import time

import numpy as np
import torch
from torch import nn
from sklearn.metrics import roc_auc_score


class KerasModel(nn.Module):
    def compile(self, loss, optimizer, device="cpu"):
        self.loss_fn = loss.to(device) if isinstance(loss, nn.Module) else loss
        self.optimizer = optimizer
        self.device = device
        self.to(device)

    def _run_epoch(self, loader, train=True):
        self.train(train)
        losses, preds, targets = [], [], []
        for xb, yb in loader:
            xb, yb = xb.to(self.device), yb.to(self.device)
            with torch.set_grad_enabled(train):
                out = self(xb)
                loss = self.loss_fn(out, yb)
            if train:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            losses.append(loss.item())
            preds.append(out.detach().cpu().numpy())
            targets.append(yb.cpu().numpy())
        y_true, y_score = np.concatenate(targets), np.concatenate(preds)
        return float(np.mean(losses)), roc_auc_score(y_true, y_score, average="macro")

    def fit(self, train_loader, epochs=10, validation_data=None, verbose=1):
        history = {"loss": [], "auc": [], "val_loss": [], "val_auc": []}
        for epoch in range(1, epochs + 1):
            t0 = time.time()
            loss, auc = self._run_epoch(train_loader, train=True)
            history["loss"].append(loss)
            history["auc"].append(auc)
            msg = f"Epoch {epoch}/{epochs} - {time.time() - t0:.0f}s - loss: {loss:.4f} - auc: {auc:.4f}"
            if validation_data is not None:
                val_loss, val_auc = self._run_epoch(validation_data, train=False)
                history["val_loss"].append(val_loss)
                history["val_auc"].append(val_auc)
                msg += f" - val_loss: {val_loss:.4f} - val_auc: {val_auc:.4f}"
            if verbose:
                print(msg)
        return history
