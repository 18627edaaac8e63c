import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import log_loss, roc_auc_score
from torch.utils.data import DataLoader, TensorDataset


class BaseModel(nn.Module):
    def compile(self, optimizer="adam", loss="binary_crossentropy", metrics=None, lr=1e-3):
        self.optim = torch.optim.Adam(self.parameters(), lr=lr) if optimizer == "adam" else optimizer
        self.loss_func = self._get_loss_func(loss)
        self.metrics = {m: {"auc": roc_auc_score, "logloss": log_loss}[m] for m in (metrics or [])}

    def _get_loss_func(self, loss):
        if loss == "binary_crossentropy":
            return nn.BCEWithLogitsLoss()
        if loss == "mse":
            return nn.MSELoss()
        return loss

    def fit(self, x, y, batch_size=256, epochs=1, validation_data=None, verbose=1):
        device = next(self.parameters()).device
        ds = TensorDataset(torch.from_numpy(x).long(), torch.from_numpy(y).float())
        loader = DataLoader(ds, batch_size=batch_size, shuffle=True)
        for epoch in range(epochs):
            self.train()
            total = 0.0
            for xb, yb in loader:
                xb, yb = xb.to(device), yb.to(device)
                y_pred = self(xb).squeeze(-1)
                loss = self.loss_func(y_pred, yb)
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
                total += loss.item() * len(yb)
            msg = f"Epoch {epoch + 1}/{epochs} - loss: {total / len(ds):.4f}"
            if validation_data is not None:
                pred = self.predict(validation_data[0], batch_size)
                for name, fn in self.metrics.items():
                    msg += f" - val_{name}: {fn(validation_data[1], pred):.4f}"
            if verbose:
                print(msg)

    @torch.no_grad()
    def predict(self, x, batch_size=256):
        self.eval()
        device = next(self.parameters()).device
        loader = DataLoader(TensorDataset(torch.from_numpy(x).long()), batch_size=batch_size)
        out = [self(xb.to(device)).squeeze(-1).cpu().numpy() for (xb,) in loader]
        return np.concatenate(out).astype("float64")
