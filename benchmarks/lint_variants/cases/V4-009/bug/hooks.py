import datetime
import logging
import time

import torch

logger = logging.getLogger(__name__)


class HookBase:
    trainer = None

    def before_train(self):
        pass

    def after_train(self):
        pass

    def before_step(self):
        pass

    def after_step(self):
        pass


class IterationTimer(HookBase):
    def before_train(self):
        self._start = time.perf_counter()

    def after_train(self):
        total = time.perf_counter() - self._start
        logger.info("Total training time: %s", str(datetime.timedelta(seconds=int(total))))


class LRScheduler(HookBase):
    def __init__(self, optimizer, scheduler):
        self._optimizer = optimizer
        self._scheduler = scheduler

    def before_step(self):
        lr = self._optimizer.param_groups[0]["lr"]
        self.trainer.storage["lr"] = lr
        self._scheduler.step()


class PeriodicCheckpointer(HookBase):
    def __init__(self, model, period, output_dir):
        self.model = model
        self.period = period
        self.output_dir = output_dir

    def after_step(self):
        it = self.trainer.iter + 1
        if it % self.period == 0 or it == self.trainer.max_iter:
            torch.save(self.model.state_dict(), f"{self.output_dir}/model_{it:07d}.pth")


class PeriodicWriter(HookBase):
    def __init__(self, period=20):
        self.period = period

    def after_step(self):
        it = self.trainer.iter + 1
        if it % self.period == 0:
            s = self.trainer.storage
            logger.info(f"iter: {it}  total_loss: {s['total_loss']:.4f}  lr: {s['lr']:.6f}")
