import torch

from learner import Callback


class Recorder(Callback):
    order = 10

    def before_fit(self, learn):
        self.losses, self.values = [], []

    def after_batch(self, learn):
        self.losses.append(learn.loss.item())


class ValidateCallback(Callback):
    order = 20

    def __init__(self, metrics):
        self.metrics = metrics

    def after_epoch(self, learn):
        learn.model.eval()
        preds, targs, val_loss, n = [], [], 0.0, 0
        with torch.no_grad():
            for xb, yb in learn.dls.valid:
                xb, yb = xb.to(learn.device), yb.to(learn.device)
                out = learn.model(xb)
                val_loss += learn.loss_func(out, yb).item() * len(yb)
                n += len(yb)
                preds.append(out.cpu())
                targs.append(yb.cpu())
        preds, targs = torch.cat(preds), torch.cat(targs)
        vals = [val_loss / n] + [m(preds, targs) for m in self.metrics]
        rec = next((cb for cb in learn.cbs if isinstance(cb, Recorder)), None)
        if rec is not None:
            rec.values.append(vals)
        print(learn.epoch, f"{sum(rec.losses[-len(learn.dls.train):]) / len(learn.dls.train):.4f}"
              if rec else "", "  ".join(f"{v:.4f}" for v in vals))


def accuracy(preds, targs):
    return (preds.argmax(dim=-1) == targs).float().mean().item()


def error_rate(preds, targs):
    return 1 - accuracy(preds, targs)
