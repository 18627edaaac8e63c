from abc import abstractmethod

import torch


class BaseTrainer:
    def __init__(self, model, criterion, metric_ftns, optimizer, config):
        self.config = config
        self.model = model
        self.criterion = criterion
        self.metric_ftns = metric_ftns
        self.optimizer = optimizer
        cfg_trainer = config["trainer"]
        self.epochs = cfg_trainer["epochs"]
        self.save_period = cfg_trainer["save_period"]
        self.checkpoint_dir = cfg_trainer["save_dir"]
        self.mnt_best = float("inf")
        self.start_epoch = 1

    @abstractmethod
    def _train_epoch(self, epoch):
        raise NotImplementedError

    def train(self):
        for epoch in range(self.start_epoch, self.epochs + 1):
            log = {"epoch": epoch}
            log.update(self._train_epoch(epoch))
            for key, value in log.items():
                print(f"    {key:15s}: {value}")
            best = log.get("val_loss", float("inf")) < self.mnt_best
            if best:
                self.mnt_best = log["val_loss"]
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
        torch.save(state, f"{self.checkpoint_dir}/checkpoint-epoch{epoch}.pth")
        if save_best:
            torch.save(state, f"{self.checkpoint_dir}/model_best.pth")
