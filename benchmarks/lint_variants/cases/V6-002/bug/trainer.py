import numpy as np
import torch

from base_trainer import BaseTrainer


class Trainer(BaseTrainer):
    """
    Trainer class
    """
    def __init__(self, model, criterion, metric_ftns, optimizer, config, device,
                 data_loader, valid_data_loader=None, lr_scheduler=None, len_epoch=None):
        super().__init__(model, criterion, metric_ftns, optimizer, config)
        self.device = device
        self.data_loader = data_loader
        self.len_epoch = len_epoch or len(self.data_loader)
        self.valid_data_loader = valid_data_loader
        self.do_validation = self.valid_data_loader is not None
        self.lr_scheduler = lr_scheduler
        self.log_step = int(np.sqrt(data_loader.batch_size))

    def _train_epoch(self, epoch):
        self.model.train()
        total_loss = 0
        total_metrics = np.zeros(len(self.metric_ftns))
        for batch_idx, (data, target) in enumerate(self.data_loader):
            data, target = data.to(self.device), target.to(self.device)

            self.optimizer.zero_grad()
            output = self.model(data)
            loss = self.criterion(output, target)
            loss.backward()
            self.optimizer.step()

            total_loss += loss
            for i, metric in enumerate(self.metric_ftns):
                total_metrics[i] += metric(output.detach(), target)

            if batch_idx % self.log_step == 0:
                print("Train Epoch: {} [{}/{}] Loss: {:.6f}".format(
                    epoch, batch_idx, self.len_epoch, loss.item()))
            if batch_idx == self.len_epoch:
                break

        log = {"loss": float(total_loss / self.len_epoch)}
        log.update({m.__name__: total_metrics[i] / self.len_epoch
                    for i, m in enumerate(self.metric_ftns)})
        if self.do_validation:
            val_log = self._valid_epoch(epoch)
            log.update(**{"val_" + k: v for k, v in val_log.items()})
        if self.lr_scheduler is not None:
            self.lr_scheduler.step()
        return log

    def _valid_epoch(self, epoch):
        self.model.eval()
        total_val_loss = 0.0
        total_val_metrics = np.zeros(len(self.metric_ftns))
        with torch.no_grad():
            for data, target in self.valid_data_loader:
                data, target = data.to(self.device), target.to(self.device)
                output = self.model(data)
                total_val_loss += self.criterion(output, target).item()
                for i, metric in enumerate(self.metric_ftns):
                    total_val_metrics[i] += metric(output, target)
        n = len(self.valid_data_loader)
        log = {"loss": total_val_loss / n}
        log.update({m.__name__: total_val_metrics[i] / n for i, m in enumerate(self.metric_ftns)})
        return log
