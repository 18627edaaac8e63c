import os
import time
from collections import defaultdict

import torch


class Hook:
    priority = 50

    def before_run(self, runner):
        pass

    def before_train_epoch(self, runner):
        pass

    def after_train_iter(self, runner, batch_idx, outputs):
        pass

    def after_train_epoch(self, runner):
        pass


class LoggerHook(Hook):
    priority = 90

    def __init__(self, interval=20):
        self.interval = interval
        self.history = defaultdict(list)
        self._t0 = None

    def before_train_epoch(self, runner):
        self.history.clear()
        self._t0 = time.time()

    def after_train_iter(self, runner, batch_idx, outputs):
        for name, value in outputs.items():
            self.history[name].append(value.detach())
        if (batch_idx + 1) % self.interval == 0:
            msg = ", ".join(
                f"{k}: {torch.stack(v[-self.interval:]).mean().item():.4f}"
                for k, v in self.history.items())
            runner.logger.info(f"Epoch [{runner.epoch}][{batch_idx + 1}/{runner.max_iters}] {msg}")

    def after_train_epoch(self, runner):
        summary = {k: torch.stack(v).mean().item() for k, v in self.history.items()}
        runner.message_hub[runner.epoch] = summary
        runner.logger.info(f"Epoch {runner.epoch} done in {time.time() - self._t0:.1f}s: {summary}")


class CheckpointHook(Hook):
    def __init__(self, out_dir, interval=1):
        self.out_dir = out_dir
        self.interval = interval

    def after_train_epoch(self, runner):
        if (runner.epoch + 1) % self.interval == 0:
            os.makedirs(self.out_dir, exist_ok=True)
            torch.save({"epoch": runner.epoch,
                        "state_dict": runner.model.state_dict(),
                        "optimizer": runner.optimizer.state_dict()},
                       os.path.join(self.out_dir, f"epoch_{runner.epoch + 1}.pth"))
