import torch


class Callback:
    order = 0
    learner = None

    def __getattr__(self, name):
        return getattr(self.learner, name)


class Learner:
    def __init__(self, model, train_dl, valid_dl, loss_func, opt_func, lr, callbacks=()):
        self.model = model
        self.train_dl, self.valid_dl = train_dl, valid_dl
        self.loss_func = loss_func
        self.opt = opt_func(model.parameters(), lr=lr)
        self.lr = lr
        self.cbs = sorted(callbacks, key=lambda cb: cb.order)
        for cb in self.cbs:
            cb.learner = self

    def callback(self, event):
        for cb in self.cbs:
            method = getattr(type(cb), event, None)
            if method is not None:
                method(cb)

    def one_batch(self, xb, yb):
        self.xb, self.yb = xb, yb
        self.callback("before_batch")
        self.preds = self.model(self.xb)
        self.loss = self.loss_func(self.preds, self.yb)
        if self.training:
            self.loss.backward()
            self.callback("before_step")
            self.opt.step()
            self.callback("after_step")
            self.opt.zero_grad()
        self.callback("after_batch")

    def one_epoch(self, training):
        self.training = training
        self.model.train(training)
        dl = self.train_dl if training else self.valid_dl
        self.dl = dl
        self.callback("before_epoch" if training else "before_validate")
        with torch.set_grad_enabled(training):
            for self.iter, (xb, yb) in enumerate(dl):
                self.one_batch(xb, yb)
        self.callback("after_epoch" if training else "after_validate")

    def fit(self, n_epochs):
        self.n_epochs = n_epochs
        self.callback("before_fit")
        for self.epoch in range(n_epochs):
            self.one_epoch(True)
            self.one_epoch(False)
        self.callback("after_fit")
