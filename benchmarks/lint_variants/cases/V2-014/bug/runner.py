import os.path as osp
import time

import torch
import torch.distributed as dist


class EpochBasedRunner:
    def __init__(self, model, optimizer, work_dir, logger, rank=0, max_epochs=12, log_interval=50):
        self.model = model
        self.optimizer = optimizer
        self.work_dir = work_dir
        self.logger = logger
        self.rank = rank
        self._max_epochs = max_epochs
        self.log_interval = log_interval
        self._epoch = 0
        self._iter = 0

    def train(self, data_loader):
        self.model.train()
        self.data_loader = data_loader
        t0 = time.time()
        for i, data_batch in enumerate(self.data_loader):
            losses = self.model(**data_batch, return_loss=True)
            loss = sum(v for k, v in losses.items() if "loss" in k)
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=35, norm_type=2)
            self.optimizer.step()
            self._iter += 1
            if self.rank == 0 and i % self.log_interval == 0:
                log = ", ".join(f"{k}: {v.mean().item():.4f}" for k, v in losses.items())
                self.logger.info(f"Epoch [{self._epoch + 1}][{i}/{len(data_loader)}] "
                                 f"time: {time.time() - t0:.2f} {log}")
                t0 = time.time()
        self._epoch += 1

    @torch.no_grad()
    def val(self, data_loader):
        self.model.eval()
        results = []
        for data_batch in data_loader:
            results.extend(self.model(**data_batch, return_loss=False))
        return results

    def save_checkpoint(self):
        if self.rank == 0:
            torch.save({"epoch": self._epoch, "state_dict": self.model.module.state_dict(),
                        "optimizer": self.optimizer.state_dict()},
                       osp.join(self.work_dir, f"epoch_{self._epoch}.pth"))

    def run(self, train_loader, val_loader, lr_config):
        scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, lr_config["step"], gamma=0.1)
        while self._epoch < self._max_epochs:
            self.train(train_loader)
            scheduler.step()
            self.save_checkpoint()
            results = self.val(val_loader)
            if self.rank == 0:
                self.logger.info(f"Epoch {self._epoch}: {len(results)} val results")
            dist.barrier()
