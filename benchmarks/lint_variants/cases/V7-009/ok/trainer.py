import logging
from typing import List, Optional

import torch

from callbacks import Callback

logger = logging.getLogger(__name__)


class RetrievalTrainer:
    def __init__(self, model, optimizer, device: str = "cuda", callbacks: Optional[List[Callback]] = None,
                 max_epochs: int = 5, clip_norm: float = 5.0):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.device = device
        self.callbacks = callbacks or []
        self.max_epochs = max_epochs
        self.clip_norm = clip_norm
        self.global_step = 0
        self.history = []

    def _move(self, feats):
        return {k: v.to(self.device, non_blocking=True) for k, v in feats.items()}

    def training_step(self, batch) -> torch.Tensor:
        user_feats, item_feats, log_q = batch
        u, v = self.model(self._move(user_feats), self._move(item_feats))
        return self.model.in_batch_loss(u, v, log_q.to(self.device))

    def fit(self, train_loader):
        for cb in self.callbacks:
            cb.on_fit_start(self)
        self.model.train()
        for epoch in range(self.max_epochs):
            epoch_loss, n = 0.0, 0
            for batch in train_loader:
                loss = self.training_step(batch)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_norm)
                self.optimizer.step()
                self.global_step += 1
                epoch_loss += loss.item()
                n += 1
                logs = {"loss": loss.item(), "lr": self.optimizer.param_groups[0]["lr"]}
                for cb in self.callbacks:
                    cb.on_step_end(self, self.global_step, logs)
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch, {"loss": epoch_loss / max(n, 1)})
            logger.info("epoch %d done, mean loss %.4f", epoch, epoch_loss / max(n, 1))
        return self.history
