"""Train the pump fault classifier: python train.py [config.yaml] [section.key=value ...]

Writes model.pt, features.json (the fitted feature pipeline) and config.json to run_dir,
which evaluate_new.py reads.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Tuple

import torch

from callbacks import EarlyStopping, NaNGuard, ProgressLogger
from config import load_config
from data import build_data
from logging_utils import MetricsWriter, get_logger
from model import build_model
from trainer import Trainer
from utils import count_parameters, seed_everything, timer


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
    train_dl, val_dl, pipe = build_data(cfg)
    model = build_model(cfg)
    o = cfg["optim"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"])
    callbacks = [JsonlLogger(MetricsWriter(cfg.get("run_dir")), log, cfg["train"]["log_every"], verbose),
                 NaNGuard(), EarlyStopping("val_macro_f1", "max", cfg["train"]["early_stop_patience"])]
    if verbose:
        log.info("model %d parameters; %d train / %d val rows", count_parameters(model),
                 len(train_dl.dataset), len(val_dl.dataset))
    trainer = Trainer(model, optimizer, cfg["data"]["classes"], cfg["train"]["grad_clip"], callbacks)
    with timer("training", log if verbose else None):
        history = trainer.fit(train_dl, val_dl, cfg["train"]["epochs"])
    if verbose:
        last = history[-1]
        log.info("final: " + " ".join(f"{k}={v:.4f}" for k, v in last.items() if k.startswith("val_")))
    run_dir = cfg.get("run_dir")
    if run_dir:
        os.makedirs(run_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(run_dir, "model.pt"))
        with open(os.path.join(run_dir, "features.json"), "w") as fh:
            fh.write(pipe.to_json())
        with open(os.path.join(run_dir, "config.json"), "w") as fh:
            json.dump(cfg, fh, indent=2)
    return model, history


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
