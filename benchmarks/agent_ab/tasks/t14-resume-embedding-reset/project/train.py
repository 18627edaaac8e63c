"""Train the intent classifier.

    python train.py [config.yaml] [section.key=value ...]
    python train.py resume=true            # continue from the latest checkpoint in run_dir
"""
from __future__ import annotations

import sys
from typing import Optional

import torch

from callbacks import CheckpointCallback, NaNGuard, PeriodicEval, ProgressLogger
from checkpoint import latest_checkpoint, load_checkpoint
from config import Config, load_config
from data import build_data
from logging_utils import MetricsWriter, get_logger
from model import build_model
from trainer import Trainer, warmup_cosine
from utils import count_parameters, seed_everything

log = get_logger("train")


def build_optimizer(cfg: Config, model: torch.nn.Module):
    decay = [p for n, p in model.named_parameters() if p.ndim > 1 and "embedding" not in n]
    other = [p for n, p in model.named_parameters() if not (p.ndim > 1 and "embedding" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.optim.weight_decay},
                             {"params": other, "weight_decay": 0.0}], lr=cfg.optim.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, warmup_cosine(cfg.optim.warmup_steps, cfg.train.max_steps))
    return opt, sched


def run(cfg: Config, verbose: bool = True, stop_after: Optional[int] = None) -> Trainer:
    seed_everything(cfg.seed)
    stream, val = build_data(cfg)
    model = build_model(cfg)
    optimizer, scheduler = build_optimizer(cfg, model)
    writer = MetricsWriter(cfg.run_dir)
    callbacks = [ProgressLogger(cfg.train.log_every, verbose), NaNGuard(),
                 PeriodicEval(val, cfg.train.eval_every, writer, verbose),
                 CheckpointCallback(cfg.run_dir, cfg.train.save_every)]
    trainer = Trainer(model, optimizer, scheduler, cfg.train.max_steps, callbacks)
    if cfg.resume:
        path = latest_checkpoint(cfg.run_dir)
        if path is None:
            log.warning("resume requested but no checkpoint in %s; starting fresh", cfg.run_dir)
        else:
            trainer.global_step = load_checkpoint(path, model, optimizer, scheduler)
    elif verbose:
        log.info("fresh run: %d parameters", count_parameters(model))
    trainer.train(stream, stop_after=stop_after if stop_after is not None else cfg.train.stop_after)
    final = trainer.evaluate(*val)
    if verbose:
        log.info("finished at step %d: val_loss=%.4f val_acc=%.4f", trainer.global_step,
                 final["val_loss"], final["val_acc"])
    return trainer


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
