"""Train the building-load model: python train.py [config.yaml] [section.key=value ...]"""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Tuple

import torch

from callbacks import BestCheckpoint, NaNGuard, ProgressLogger
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
    train_dl, val_dl, _, target_scaler = build_data(cfg)
    model = build_model(cfg)
    o = cfg["optim"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=o["lr"], weight_decay=o["weight_decay"])
    run_dir = cfg.get("run_dir")
    callbacks = [JsonlLogger(MetricsWriter(run_dir), log, cfg["train"]["log_every"], verbose), NaNGuard(),
                 BestCheckpoint(os.path.join(run_dir, "model.pt") if run_dir else None, "val_mae")]
    if verbose:
        log.info("model %d parameters; %d training hours; target %s (%s)", count_parameters(model),
                 len(train_dl.dataset), cfg["data"]["target"], cfg["data"]["target_transform"])
    trainer = Trainer(model, optimizer, target_scaler, cfg["train"]["grad_clip"], callbacks)
    with timer("training", log if verbose else None):
        history = trainer.fit(train_dl, val_dl, cfg["train"]["epochs"])
    if verbose:
        last = history[-1]
        log.info("final: val_mae=%.1f kWh val_rmse=%.1f val_mape=%.1f%% val_r2=%.3f",
                 last["val_mae"], last["val_rmse"], last["val_mape"], last["val_r2"])
    if run_dir:
        os.makedirs(run_dir, exist_ok=True)
        with open(os.path.join(run_dir, "config.json"), "w") as fh:
            json.dump(cfg, fh, indent=2)
        with open(os.path.join(run_dir, "target_scaler.json"), "w") as fh:
            fh.write(target_scaler.to_json())
    return model, history


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
