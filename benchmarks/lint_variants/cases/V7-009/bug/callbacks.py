import logging
import os
from typing import Dict

import torch

logger = logging.getLogger(__name__)


class Callback:
    def on_fit_start(self, trainer) -> None:
        pass

    def on_step_end(self, trainer, step: int, logs: Dict[str, float]) -> None:
        pass

    def on_epoch_end(self, trainer, epoch: int, logs: Dict[str, float]) -> None:
        pass


class LoggingCallback(Callback):
    def __init__(self, every: int = 100):
        self.every = every

    def on_step_end(self, trainer, step, logs):
        if step % self.every == 0:
            logger.info("step %d | %s", step, " ".join(f"{k}={v:.4f}" for k, v in logs.items()))


class RecallAtK(Callback):
    """Full-corpus retrieval evaluation on held-out (user, next item) pairs."""

    def __init__(self, eval_users, item_catalog, every: int = 2000, ks=(10, 50, 100), ckpt_dir: str = "ckpt"):
        self.eval_users = eval_users
        self.item_catalog = item_catalog
        self.every = every
        self.ks = ks
        self.ckpt_dir = ckpt_dir
        self.best = -1.0

    @torch.no_grad()
    def _item_index(self, model, device) -> torch.Tensor:
        chunks = []
        for batch in self.item_catalog:
            batch = {k: v.to(device) for k, v in batch.items()}
            chunks.append(model.item_tower(batch))
        return torch.cat(chunks)

    @torch.no_grad()
    def evaluate(self, model, device) -> Dict[str, float]:
        index = self._item_index(model, device)
        hits = {k: 0 for k in self.ks}
        n = 0
        for batch, target in self.eval_users:
            batch = {k: v.to(device) for k, v in batch.items()}
            scores = model.user_tower(batch) @ index.T
            scores.scatter_(1, batch["history"], float("-inf"))
            top = scores.topk(max(self.ks), dim=1).indices.cpu()
            for k in self.ks:
                hits[k] += (top[:, :k] == target.unsqueeze(1)).any(1).sum().item()
            n += target.numel()
        return {f"recall@{k}": hits[k] / max(n, 1) for k in self.ks}

    def on_step_end(self, trainer, step, logs):
        if step == 0 or step % self.every:
            return
        trainer.model.eval()
        metrics = self.evaluate(trainer.model, trainer.device)
        logger.info("step %d eval | %s", step, " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
        trainer.history.append({"step": step, **metrics})
        if metrics[f"recall@{self.ks[-1]}"] > self.best:
            self.best = metrics[f"recall@{self.ks[-1]}"]
            os.makedirs(self.ckpt_dir, exist_ok=True)
            torch.save(trainer.model.state_dict(), os.path.join(self.ckpt_dir, "best.pt"))
