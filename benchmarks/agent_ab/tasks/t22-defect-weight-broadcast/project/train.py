"""Train the defect classifier: python train.py [config.yaml] [section.key=value ...]

    python train.py weighting.class_weights.crack=20
    python train.py weighting.scheme=balanced
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
from weighting import class_weight_vector, describe


class JsonlLogger(ProgressLogger):
    def __init__(self, writer: MetricsWriter, logger, every: int, verbose: bool):
        super().__init__(logger, every, verbose)
        self.writer = writer

    def on_epoch_end(self, trainer, epoch, logs):
        self.writer.write(logs)
        super().on_epoch_end(trainer, epoch, logs)


def build(cfg: Dict, verbose: bool = False):
    """Seed, then build loaders, model, optimizer and trainer from the config."""
    log = get_logger("train", cfg.get("log_level", "INFO"))
    seed_everything(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    o = cfg["optim"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"])
    callbacks = [JsonlLogger(MetricsWriter(cfg.get("run_dir")), log, cfg["train"]["log_every"], verbose),
                 NaNGuard(), EarlyStopping("val_macro_f1", mode="max", patience=0)]
    trainer = Trainer(model, optimizer, cfg["data"]["class_names"], cfg["train"]["grad_clip"],
                      cfg["train"]["label_smoothing"], callbacks)
    if verbose:
        labels = train_loader.dataset.tensors[1].numpy()
        log.info("model: %d parameters; class weights: %s", count_parameters(model),
                 describe(class_weight_vector(labels, cfg), cfg["data"]["class_names"]))
    return model, trainer, train_loader, val_loader


def run(cfg: Dict, verbose: bool = True) -> Tuple[torch.nn.Module, List[Dict[str, float]]]:
    log = get_logger("train", cfg.get("log_level", "INFO"))
    model, trainer, train_loader, val_loader = build(cfg, verbose)
    with timer("training", log if verbose else None):
        history = trainer.fit(train_loader, val_loader, cfg["train"]["epochs"])
    if verbose:
        last = history[-1]
        log.info("final: " + " ".join(f"{k}={v:.4f}" for k, v in last.items() if k.startswith("val_")))
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
