from abc import abstractmethod

import torch
from numpy import inf


class BaseTrainer:
    """
    Base class for all trainers
    """
    def __init__(self, model, criterion, metric_ftns, optimizer, config):
        self.config = config
        self.model = model
        self.criterion = criterion
        self.metric_ftns = metric_ftns
        self.optimizer = optimizer

        cfg_trainer = config["trainer"]
        self.epochs = cfg_trainer["epochs"]
        self.save_period = cfg_trainer["save_period"]
        self.monitor = cfg_trainer.get("monitor", "off")
        if self.monitor == "off":
            self.mnt_mode = "off"
            self.mnt_best = 0
        else:
            self.mnt_mode, self.mnt_metric = self.monitor.split()
            self.mnt_best = inf if self.mnt_mode == "min" else -inf
        self.start_epoch = 1
        self.checkpoint_dir = config["save_dir"]

    @abstractmethod
    def _train_epoch(self, epoch):
        raise NotImplementedError

    def train(self):
        for epoch in range(self.start_epoch, self.epochs + 1):
            result = self._train_epoch(epoch)
            log = {"epoch": epoch}
            log.update(result)
            for key, value in log.items():
                print("    {:15s}: {}".format(str(key), value))
            best = False
            if self.mnt_mode != "off":
                improved = (self.mnt_mode == "min" and log[self.mnt_metric] <= self.mnt_best) or \
                           (self.mnt_mode == "max" and log[self.mnt_metric] >= self.mnt_best)
                if improved:
                    self.mnt_best = log[self.mnt_metric]
                    best = True
            if epoch % self.save_period == 0 or best:
                self._save_checkpoint(epoch, save_best=best)

    def _save_checkpoint(self, epoch, save_best=False):
        state = {
            "arch": type(self.model).__name__,
            "epoch": epoch,
            "state_dict": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "monitor_best": self.mnt_best,
        }
        torch.save(state, "{}/checkpoint-epoch{}.pth".format(self.checkpoint_dir, epoch))
        if save_best:
            torch.save(state, "{}/model_best.pth".format(self.checkpoint_dir))
