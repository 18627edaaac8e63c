import logging
import os
from dataclasses import dataclass
from typing import Callable, Optional

import torch
from torch.utils.data import DataLoader
from transformers import get_linear_schedule_with_warmup

logger = logging.getLogger(__name__)


@dataclass
class TrainingArgs:
    output_dir: str = "result/unsup-simcse-bert-base"
    num_train_epochs: int = 1
    per_device_batch_size: int = 64
    grad_accum_steps: int = 4
    learning_rate: float = 3e-5
    warmup_ratio: float = 0.0
    max_grad_norm: float = 1.0
    eval_steps: int = 125
    logging_steps: int = 50
    fp16: bool = True


class ContrastiveTrainer:
    def __init__(self, model, args: TrainingArgs, train_loader: DataLoader,
                 eval_fn: Optional[Callable[[], float]] = None, device: str = "cuda"):
        self.model = model.to(device)
        self.args = args
        self.train_loader = train_loader
        self.eval_fn = eval_fn
        self.device = device
        no_decay = ("bias", "LayerNorm.weight")
        groups = [
            {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
             "weight_decay": 0.01},
            {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
             "weight_decay": 0.0},
        ]
        self.optimizer = torch.optim.AdamW(groups, lr=args.learning_rate)
        total = len(train_loader) // args.grad_accum_steps * args.num_train_epochs
        self.scheduler = get_linear_schedule_with_warmup(self.optimizer, int(args.warmup_ratio * total), total)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
        self.global_step = 0
        self.best_metric = -1.0

    def _is_accumulation_boundary(self, step: int, num_batches: int) -> bool:
        return step % self.args.grad_accum_steps == 0 or step + 1 == num_batches

    def training_step(self, batch) -> float:
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch.autocast("cuda", dtype=torch.float16, enabled=self.args.fp16):
            loss = self.model(batch["input_ids"], batch["attention_mask"])
        loss = loss / self.args.grad_accum_steps
        self.scaler.scale(loss).backward()
        return loss.item()

    def optimizer_step(self) -> None:
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.global_step += 1

    def maybe_evaluate(self) -> None:
        if self.eval_fn is None or self.global_step % self.args.eval_steps:
            return
        metric = self.eval_fn()
        self.model.train()
        logger.info("step %d stsb_spearman %.4f", self.global_step, metric)
        if metric > self.best_metric:
            self.best_metric = metric
            os.makedirs(self.args.output_dir, exist_ok=True)
            torch.save(self.model.state_dict(), os.path.join(self.args.output_dir, "best_model.pt"))

    def train(self) -> float:
        self.model.train()
        running = 0.0
        for epoch in range(self.args.num_train_epochs):
            for step, batch in enumerate(self.train_loader):
                running += self.training_step(batch)
                if self._is_accumulation_boundary(step, len(self.train_loader)):
                    self.optimizer_step()
                    if self.global_step % self.args.logging_steps == 0:
                        logger.info("epoch %d step %d loss %.4f lr %.2e", epoch, self.global_step,
                                    running / self.args.logging_steps, self.scheduler.get_last_lr()[0])
                        running = 0.0
                    self.maybe_evaluate()
        return self.best_metric
