import math

import torch


class Callback:
    def on_train_begin(self, learn): pass
    def on_epoch_begin(self, learn): pass
    def on_batch_end(self, learn): pass
    def on_epoch_end(self, learn): pass


class Recorder(Callback):
    def on_train_begin(self, learn):
        self.losses, self.val_losses, self.metrics = [], [], []

    def on_batch_end(self, learn):
        self.losses.append(learn.loss.item())


class ValidationCallback(Callback):
    def __init__(self, valid_dl, metric):
        self.valid_dl = valid_dl
        self.metric = metric

    @torch.no_grad()
    def on_epoch_end(self, learn):
        learn.model.eval()
        tot_loss, preds, targs = 0.0, [], []
        for xb, yb in self.valid_dl:
            xb, yb = xb.to(learn.device), yb.to(learn.device)
            out = learn.model(xb)
            tot_loss += learn.loss_func(out, yb).item() * len(yb)
            preds.append(out)
            targs.append(yb)
        learn.val_loss = tot_loss / len(self.valid_dl.dataset)
        learn.val_metric = self.metric(torch.cat(preds), torch.cat(targs))


class EarlyStopping(Callback):
    def __init__(self, patience=3):
        self.patience = patience

    def on_train_begin(self, learn):
        self.best, self.wait = math.inf, 0

    def on_epoch_end(self, learn):
        if learn.val_loss < self.best:
            self.best, self.wait = learn.val_loss, 0
        else:
            self.wait += 1
            learn.stop = self.wait >= self.patience
