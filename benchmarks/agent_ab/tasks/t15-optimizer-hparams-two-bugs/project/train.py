"""Train the segment classifier: python train.py [config.yaml] [section.key=value ...]"""
from __future__ import annotations

import os
import sys
from typing import Dict, List, Tuple

import torch

from callbacks import EarlyStopping, NaNGuard, ProgressLogger
from config import load_config
from data import build_loaders
from logging_utils import MetricsWriter, get_logger
from model import build_model
from optim import build_optimizer
from trainer import Trainer
from utils import count_parameters, seed_everything, timer

log = get_logger("train")


class WriterCallback(ProgressLogger):
    def __init__(self, writer: MetricsWriter, verbose: bool):
        super().__init__(every=0, verbose=verbose)
        self.writer = writer

    def on_epoch_end(self, trainer, epoch, logs):
        self.writer.write(logs)
        super().on_epoch_end(trainer, epoch, logs)


def run(cfg: Dict, verbose: bool = True) -> Tuple[torch.nn.Module, List[Dict[str, float]]]:
    seed_everything(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    o = cfg["optim"]
    optimizer = build_optimizer(model, o)
    if verbose:
        log.info("model: %d parameters", count_parameters(model))
        log.info("optimizer %s: learning_rate=%g weight_decay=%g eps=%g", o["name"],
                 o["learning_rate"], o["weight_decay"], o["eps"])
    writer = MetricsWriter(cfg.get("run_dir"))
    trainer = Trainer(model, optimizer, [WriterCallback(writer, verbose), NaNGuard(),
                                         EarlyStopping("val_loss", patience=5)])
    with timer("training", log if verbose else None):
        history = trainer.fit(train_loader, val_loader, cfg["train"]["epochs"])
    if cfg.get("run_dir"):
        os.makedirs(cfg["run_dir"], exist_ok=True)
        torch.save(model.state_dict(), os.path.join(cfg["run_dir"], "model.pt"))
    return model, history


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
