import math
import time

import torch


class Callback:
    order = 0

    def on_train_begin(self, learner): pass
    def on_epoch_begin(self, learner): pass
    def on_batch_end(self, learner): pass
    def on_epoch_end(self, learner): pass


class OptimizerCallback(Callback):
    order = 10

    def __init__(self, accumulation_steps=1, grad_clip=None):
        self.accumulation_steps = accumulation_steps
        self.grad_clip = grad_clip

    def on_epoch_begin(self, learner):
        learner.opt.zero_grad()

    def on_batch_end(self, learner):
        if not learner.training:
            return
        (learner.loss / self.accumulation_steps).backward()
        if (learner.iter + 1) % self.accumulation_steps == 0 or learner.iter + 1 == learner.n_iter:
            if self.grad_clip is not None:
                torch.nn.utils.clip_grad_norm_(learner.model.parameters(), self.grad_clip)
            learner.opt.step()
            learner.opt.zero_grad()
            if learner.sched is not None:
                learner.sched.step()


class Recorder(Callback):
    order = 20

    def on_epoch_begin(self, learner):
        self.t0 = time.time()
        self.losses, self.correct, self.count = [], 0, 0

    def on_batch_end(self, learner):
        self.losses.append(learner.loss.item())
        self.correct += (learner.pred.argmax(-1) == learner.yb).sum().item()
        self.count += learner.yb.numel()

    def on_epoch_end(self, learner):
        phase = "train" if learner.training else "valid"
        avg = sum(self.losses) / max(len(self.losses), 1)
        print(f"{learner.epoch:3d} {phase:5s} loss {avg:.4f} acc {self.correct / max(self.count, 1):.4f} "
              f"({time.time() - self.t0:.0f}s)")
