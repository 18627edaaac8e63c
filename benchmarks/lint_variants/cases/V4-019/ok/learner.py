import torch


class Learner:
    def __init__(self, model, dls, loss_func, opt, sched=None, cbs=(), device="cuda"):
        self.model = model.to(device)
        self.train_dl, self.valid_dl = dls
        self.loss_func = loss_func
        self.opt = opt
        self.sched = sched
        self.cbs = sorted(cbs, key=lambda c: c.order)
        self.device = device

    def __call__(self, event):
        for cb in self.cbs:
            getattr(cb, event)(self)

    def one_batch(self, xb, yb):
        self.xb, self.yb = xb.to(self.device), yb.to(self.device)
        self.pred = self.model(self.xb)
        self.loss = self.loss_func(self.pred, self.yb)
        self("on_batch_end")

    def one_epoch(self, training):
        self.training = training
        self.model.train(training)
        dl = self.train_dl if training else self.valid_dl
        self.n_iter = len(dl)
        self("on_epoch_begin")
        with torch.set_grad_enabled(training):
            for self.iter, (xb, yb) in enumerate(dl):
                self.one_batch(xb, yb)
        self("on_epoch_end")

    def fit(self, n_epochs):
        self("on_train_begin")
        for self.epoch in range(n_epochs):
            self.one_epoch(True)
            self.one_epoch(False)
