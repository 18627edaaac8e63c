import torch
from torch.optim.lr_scheduler import OneCycleLR

from engine import Callback


class DeviceCallback(Callback):
    order = -10

    def __init__(self, device="cuda"):
        self.device = device

    def before_fit(self):
        self.model.to(self.device)

    def before_batch(self):
        self.learner.xb = self.xb.to(self.device)
        self.learner.yb = self.yb.to(self.device)


class OneCycleScheduler(Callback):
    order = 10

    def __init__(self, pct_start=0.25):
        self.pct_start = pct_start

    def before_fit(self):
        total = self.n_epochs * len(self.train_dl)
        self.sched = OneCycleLR(self.opt, max_lr=self.lr, total_steps=total, pct_start=self.pct_start)

    def before_batch(self):
        if self.training:
            self.sched.step()


class Recorder(Callback):
    order = 20

    def before_fit(self):
        self.train_losses, self.lrs, self.valid_acc = [], [], []

    def after_batch(self):
        if self.training:
            self.train_losses.append(self.loss.item())
            self.lrs.append(self.opt.param_groups[0]["lr"])
        else:
            self.correct += (self.preds.argmax(1) == self.yb).sum().item()
            self.count += self.yb.numel()

    def before_validate(self):
        self.correct, self.count = 0, 0

    def after_validate(self):
        self.valid_acc.append(self.correct / max(self.count, 1))
        print(f"epoch {self.epoch}: loss {self.train_losses[-1]:.4f} acc {self.valid_acc[-1]:.4f}")
