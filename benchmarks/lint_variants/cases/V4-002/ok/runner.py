import logging

import torch

from hooks import Hook, LoggerHook, CheckpointHook


class EpochBasedRunner:
    def __init__(self, model, optimizer, train_dataloader, max_epochs, work_dir, device="cuda"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.train_dataloader = train_dataloader
        self.max_epochs = max_epochs
        self.work_dir = work_dir
        self.device = device
        self.epoch = 0
        self.max_iters = len(train_dataloader)
        self.message_hub = {}
        self.logger = logging.getLogger("runner")
        self._hooks = []

    def register_hook(self, hook: Hook):
        self._hooks.append(hook)
        self._hooks.sort(key=lambda h: h.priority)

    def call_hook(self, fn_name, *args, **kwargs):
        for hook in self._hooks:
            getattr(hook, fn_name)(self, *args, **kwargs)

    def run_iter(self, batch_idx, data_batch):
        data_batch = {k: v.to(self.device) for k, v in data_batch.items()}
        losses = self.model(**data_batch, mode="loss")
        loss = sum(losses.values())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        losses["loss"] = loss
        self.call_hook("after_train_iter", batch_idx, losses)

    def train(self):
        self.call_hook("before_run")
        for self.epoch in range(self.epoch, self.max_epochs):
            self.model.train()
            self.call_hook("before_train_epoch")
            for batch_idx, data_batch in enumerate(self.train_dataloader):
                self.run_iter(batch_idx, data_batch)
            self.call_hook("after_train_epoch")


def build_runner(cfg, model, train_dataloader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    runner = EpochBasedRunner(model, optimizer, train_dataloader, cfg["max_epochs"], cfg["work_dir"])
    runner.register_hook(LoggerHook(interval=cfg.get("log_interval", 20)))
    runner.register_hook(CheckpointHook(cfg["work_dir"], interval=cfg.get("ckpt_interval", 1)))
    return runner
