import torch
from fastprogress.fastprogress import master_bar, progress_bar


def accuracy(preds, targs):
    return (preds.argmax(dim=-1) == targs).float().mean().item()


class Learner:
    def __init__(self, model, train_dl, loss_func, opt_func=torch.optim.Adam, lr=1e-3, cbs=None, device="cuda"):
        self.model = model.to(device)
        self.train_dl = train_dl
        self.loss_func = loss_func
        self.opt = opt_func(model.parameters(), lr=lr)
        self.cbs = cbs or []
        self.device = device
        self.stop = False

    def _cb(self, name):
        for cb in self.cbs:
            getattr(cb, name)(self)

    def one_batch(self, xb, yb):
        self.pred = self.model(xb)
        self.loss = self.loss_func(self.pred, yb)
        self.loss.backward()
        self.opt.step()
        self.opt.zero_grad()

    def fit(self, n_epoch):
        self._cb("on_train_begin")
        self.model.train()
        mb = master_bar(range(n_epoch))
        for epoch in mb:
            self.epoch = epoch
            self._cb("on_epoch_begin")
            for xb, yb in progress_bar(self.train_dl, parent=mb):
                self.one_batch(xb.to(self.device), yb.to(self.device))
                self._cb("on_batch_end")
            self._cb("on_epoch_end")
            mb.write(f"epoch {epoch}: train {self.loss.item():.4f} valid {self.val_loss:.4f} "
                     f"metric {self.val_metric:.4f}")
            if self.stop:
                break
