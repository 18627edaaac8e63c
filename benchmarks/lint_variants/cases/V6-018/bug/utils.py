import numpy as np
import torch


def param_groups(model, lr, emb_lr_mult=10.0, wd=1e-5):
    return [
        {"params": model.embeds.parameters(), "lr": lr * emb_lr_mult, "weight_decay": 0.0},
        {"params": list(model.bn_cont.parameters()) + list(model.layers.parameters()),
         "lr": lr, "weight_decay": wd},
    ]


def rmse(y_true, y_pred):
    return float(np.sqrt(np.mean((y_true - y_pred) ** 2)))


class Learner:
    def __init__(self, model, loss_fn, lr=1e-3, device="cpu"):
        self.model = model.to(device)
        self.loss_fn = loss_fn
        self.device = device
        self.opt = torch.optim.AdamW(param_groups(model, lr), lr=lr)
        self.history = {"loss": [], "val_loss": [], "val_rmse": []}

    def _run(self, loader, train):
        self.model.train(train)
        losses, preds, ys = [], [], []
        for x_cat, x_cont, y in loader:
            x_cat, x_cont, y = x_cat.to(self.device), x_cont.to(self.device), y.to(self.device)
            with torch.set_grad_enabled(train):
                out = self.model(x_cat, x_cont)
                loss = self.loss_fn(out, y)
            if train:
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            losses.append(loss.item())
            preds.append(out.detach().cpu().numpy())
            ys.append(y.cpu().numpy())
        return float(np.mean(losses)), np.concatenate(preds), np.concatenate(ys)

    def fit(self, train_loader, valid_loader=None, epochs=10, verbose=1):
        for epoch in range(epochs):
            loss, _, _ = self._run(train_loader, train=True)
            self.history["loss"].append(loss)
            msg = f"Epoch {epoch + 1}/{epochs} - loss: {loss:.4f}"
            if valid_loader is not None:
                val_loss, p, y = self._run(valid_loader, train=False)
                self.history["val_loss"].append(val_loss)
                self.history["val_rmse"].append(rmse(y, p))
                msg += f" - val_loss: {val_loss:.4f} - val_rmse: {self.history['val_rmse'][-1]:.4f}"
            if verbose:
                print(msg)
        return self.history

    def predict(self, loader):
        _, p, _ = self._run(loader, train=False)
        return p
