"""Train the gesture classifier: python train.py [config.yaml] [section.key=value ...]

Small GPUs: keep train.batch_size (the effective batch) and raise train.accum_steps.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Tuple

import torch

from callbacks import NaNGuard, ProgressLogger
from config import Config, load_config
from data import build_loaders
from logging_utils import MetricsWriter, get_logger
from model import build_model
from trainer import Trainer
from utils import AccumulationPlan, count_parameters, seed_everything, timer

log = get_logger("train")


def build_optimizer(cfg: Config, model: torch.nn.Module) -> torch.optim.Optimizer:
    o = cfg.optim
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    groups = [{"params": decay, "weight_decay": o.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    if o.name == "sgd":
        return torch.optim.SGD(groups, lr=o.lr, momentum=o.momentum, nesterov=o.nesterov)
    if o.name == "adamw":
        return torch.optim.AdamW(groups, lr=o.lr)
    raise ValueError(f"unknown optimizer {o.name}")


class JsonlCallback(ProgressLogger):
    def __init__(self, writer: MetricsWriter, every: int, verbose: bool):
        super().__init__(every=every, verbose=verbose)
        self.writer = writer

    def on_epoch_end(self, trainer, epoch, logs):
        self.writer.write(logs)
        super().on_epoch_end(trainer, epoch, logs)


def run(cfg: Config, verbose: bool = True) -> Tuple[torch.nn.Module, List[Dict[str, float]]]:
    seed_everything(cfg.seed)
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    plan = AccumulationPlan(cfg.train.accum_steps)
    n_norm = plan.adapt_norm_layers(model)
    if verbose:
        log.info("model: %d parameters, %d norm layers", count_parameters(model), n_norm)
        log.info(plan.describe(cfg.micro_batch_size))
    optimizer = build_optimizer(cfg, model)
    writer = MetricsWriter(cfg.run_dir)
    trainer = Trainer(model, optimizer, plan, cfg.train.grad_clip,
                      [JsonlCallback(writer, cfg.train.log_every, verbose), NaNGuard()])
    with timer("training", log if verbose else None):
        history = trainer.fit(train_loader, val_loader, cfg.train.epochs)
    if cfg.run_dir:
        os.makedirs(cfg.run_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(cfg.run_dir, "model.pt"))
        with open(os.path.join(cfg.run_dir, "config.json"), "w") as fh:
            json.dump(cfg.to_dict(), fh, indent=2)
    return model, history


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
