"""Train the segment classifier: python train.py [config.yaml] [section.key=value ...]

    python train.py                      # config.yaml
    python train.py export.probe=true    # also build the embedding probe for export.py
"""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Tuple

import torch

from callbacks import EarlyStopping, NaNGuard, ProgressLogger
from config import load_config
from data import build_loaders
from logging_utils import MetricsWriter, get_logger
from model import build_model
from trainer import Trainer
from utils import count_parameters, seed_everything, timer


def build_optimizer(cfg: Dict, model: torch.nn.Module) -> torch.optim.Optimizer:
    o = cfg["optim"]
    return torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"],
                             betas=tuple(o["betas"]))


class JsonlLogger(ProgressLogger):
    def __init__(self, writer: MetricsWriter, logger, every: int, verbose: bool):
        super().__init__(logger, every, verbose)
        self.writer = writer

    def on_epoch_end(self, trainer, epoch, logs):
        self.writer.write(logs)
        super().on_epoch_end(trainer, epoch, logs)


def run(cfg: Dict, verbose: bool = True) -> Tuple[torch.nn.Module, List[Dict[str, float]]]:
    log = get_logger("train", cfg.get("log_level", "INFO"))
    seed_everything(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    if verbose:
        log.info("seed %d, model %d parameters, probe=%s", cfg["seed"], count_parameters(model),
                 cfg["export"]["probe"])
    optimizer = build_optimizer(cfg, model)
    callbacks = [JsonlLogger(MetricsWriter(cfg.get("run_dir")), log, cfg["train"]["log_every"], verbose),
                 NaNGuard(), EarlyStopping("val_loss", patience=cfg["train"]["early_stop_patience"])]
    trainer = Trainer(model, optimizer, cfg["data"]["num_classes"], cfg["train"]["grad_clip"], callbacks)
    with timer("training", log if verbose else None):
        history = trainer.fit(train_loader, val_loader, cfg["train"]["epochs"])
    if verbose:
        last = history[-1]
        log.info("final: val_acc=%.4f val_loss=%.4f val_macro_f1=%.4f",
                 last["val_acc"], last["val_loss"], last["val_macro_f1"])
    if cfg.get("run_dir"):
        os.makedirs(cfg["run_dir"], exist_ok=True)
        torch.save(model.state_dict(), os.path.join(cfg["run_dir"], "model.pt"))
        with open(os.path.join(cfg["run_dir"], "config.json"), "w") as fh:
            json.dump(cfg, fh, indent=2)
    return model, history


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
