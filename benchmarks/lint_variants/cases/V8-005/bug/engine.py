import logging
import os
import time

import torch

logger = logging.getLogger(__name__)


class Callback:
    def on_train_start(self, trainer):
        pass

    def on_train_batch_end(self, trainer, batch_idx, logs):
        pass

    def on_epoch_end(self, trainer, epoch):
        pass


class ProgressLogger(Callback):
    def __init__(self, every=500):
        self.every = every
        self.t0 = time.time()

    def on_train_batch_end(self, trainer, batch_idx, logs):
        if (batch_idx + 1) % self.every == 0:
            lr = trainer.optimizer.param_groups[0]["lr"]
            logger.info("ep %d batch %d content %.2f style %.2f lr %.2e (%.1fs)", trainer.epoch, batch_idx + 1,
                        logs["content"], logs["style"], lr, time.time() - self.t0)


class LRSchedulerCallback(Callback):
    def on_train_batch_end(self, trainer, batch_idx, logs):
        if trainer.scheduler is not None:
            trainer.scheduler.step()


class Checkpointer(Callback):
    def __init__(self, out_dir, every=2000):
        self.out_dir, self.every = out_dir, every
        os.makedirs(out_dir, exist_ok=True)

    def on_train_batch_end(self, trainer, batch_idx, logs):
        if (batch_idx + 1) % self.every == 0:
            path = os.path.join(self.out_dir, f"ckpt_epoch_{trainer.epoch}_batch_{batch_idx + 1}.pth")
            torch.save(trainer.model.state_dict(), path)

    def on_epoch_end(self, trainer, epoch):
        torch.save(trainer.model.state_dict(), os.path.join(self.out_dir, f"epoch_{epoch}.pth"))


class StyleTrainer:
    def __init__(self, model, criterion, optimizer, scheduler=None, callbacks=(), device="cpu"):
        self.model = model.to(device)
        self.criterion = criterion.to(device)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.callbacks = list(callbacks)
        self.device = device
        self.epoch = 0

    def _emit(self, name, *args):
        for cb in self.callbacks:
            getattr(cb, name)(self, *args)

    def fit(self, loader, epochs):
        self._emit("on_train_start")
        for epoch in range(epochs):
            self.epoch = epoch
            self.model.train()
            for batch_idx, (x, _) in enumerate(loader):
                x = x.to(self.device)
                self.optimizer.zero_grad()
                y = self.model(x)
                content, style = self.criterion(y, x)
                loss = content + style
                loss.backward()
                self.optimizer.step()
                self._emit("on_train_batch_end", batch_idx, {"content": content.item(), "style": style.item()})
            self._emit("on_epoch_end", epoch)
        return self.model
