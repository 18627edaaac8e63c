import logging
import os
import time
from abc import ABC, abstractmethod
from typing import Dict, List, Optional

import torch
from torch.utils.data import DataLoader

logger = logging.getLogger(__name__)


class BaseTrainer(ABC):
    """Minimal trainer with overridable hooks; subclasses implement train_step / eval_step."""

    monitor: str = "val_loss"
    monitor_mode: str = "min"

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 scheduler=None, device: str = "cuda", out_dir: str = "outputs", max_epochs: int = 30,
                 grad_clip: Optional[float] = None, use_amp: bool = True):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.out_dir = out_dir
        self.max_epochs = max_epochs
        self.grad_clip = grad_clip
        self.scaler = torch.cuda.amp.GradScaler(enabled=use_amp and device.startswith("cuda"))
        self.epoch = 0
        self.best = float("inf") if self.monitor_mode == "min" else -float("inf")
        self.history: List[Dict[str, float]] = []
        os.makedirs(out_dir, exist_ok=True)

    @abstractmethod
    def train_step(self, batch) -> Dict[str, torch.Tensor]:
        ...

    @abstractmethod
    def eval_step(self, batch) -> Dict[str, torch.Tensor]:
        ...

    def on_epoch_start(self) -> None:
        pass

    def on_validation_end(self, metrics: Dict[str, float]) -> None:
        pass

    def aggregate(self, outputs: List[Dict[str, torch.Tensor]]) -> Dict[str, float]:
        keys = outputs[0].keys()
        return {k: torch.stack([o[k].float() for o in outputs]).mean().item() for k in keys}

    def _to_device(self, batch):
        return [b.to(self.device, non_blocking=True) if torch.is_tensor(b) else b for b in batch]

    def train_one_epoch(self, loader: DataLoader) -> Dict[str, float]:
        self.model.train()
        self.on_epoch_start()
        running, n = 0.0, 0
        for batch in loader:
            batch = self._to_device(batch)
            with torch.autocast(device_type="cuda", enabled=self.scaler.is_enabled()):
                out = self.train_step(batch)
            self.optimizer.zero_grad(set_to_none=True)
            self.scaler.scale(out["loss"]).backward()
            if self.grad_clip:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            running += out["loss"].item()
            n += 1
        if self.scheduler is not None:
            self.scheduler.step()
        return {"train_loss": running / max(n, 1)}

    @torch.no_grad()
    def evaluate(self, loader: DataLoader, prefix: str = "val") -> Dict[str, float]:
        self.model.eval()
        outputs = []
        for batch in loader:
            batch = self._to_device(batch)
            outputs.append(self.eval_step(batch))
        metrics = self.aggregate(outputs)
        return {f"{prefix}_{k}": v for k, v in metrics.items()}

    def _is_better(self, value: float) -> bool:
        return value < self.best if self.monitor_mode == "min" else value > self.best

    def save_checkpoint(self, name: str) -> None:
        torch.save({"epoch": self.epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(), "best": self.best},
                   os.path.join(self.out_dir, name))

    def fit(self, train_loader: DataLoader, val_loader: DataLoader) -> List[Dict[str, float]]:
        for self.epoch in range(self.epoch, self.max_epochs):
            t0 = time.time()
            metrics = self.train_one_epoch(train_loader)
            metrics.update(self.evaluate(val_loader))
            self.on_validation_end(metrics)
            self.history.append(metrics)
            logger.info("epoch %d | %s | %.0fs", self.epoch,
                        " ".join(f"{k}={v:.4f}" for k, v in metrics.items()), time.time() - t0)
            if self._is_better(metrics[self.monitor]):
                self.best = metrics[self.monitor]
                self.save_checkpoint("best.pt")
            self.save_checkpoint("last.pt")
        return self.history
