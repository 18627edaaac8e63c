import torch


class Callback:
    order = 0

    def before_fit(self, learn):
        pass

    def after_batch(self, learn):
        pass

    def after_epoch(self, learn):
        pass


class Learner:
    def __init__(self, model, dls, loss_func, opt_func=torch.optim.Adam, lr=1e-3, cbs=()):
        self.model, self.dls, self.loss_func = model, dls, loss_func
        self.opt = opt_func(model.parameters(), lr=lr)
        self.cbs = sorted(cbs, key=lambda c: c.order)
        self.device = next(model.parameters()).device
        self.epoch, self.loss = 0, None

    def _cb(self, name):
        for cb in self.cbs:
            getattr(cb, name)(self)

    def one_batch(self, xb, yb):
        xb, yb = xb.to(self.device), yb.to(self.device)
        self.pred = self.model(xb)
        self.loss = self.loss_func(self.pred, yb)
        self.loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        self._cb("after_batch")

    def fit(self, n_epoch):
        self._cb("before_fit")
        self.model.train()
        for self.epoch in range(n_epoch):
            for xb, yb in self.dls.train:
                self.one_batch(xb, yb)
            self._cb("after_epoch")
