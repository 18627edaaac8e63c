"""Train the concentration regressor: python train.py [config.yaml] [key=value ...]"""
from __future__ import annotations

import os
import sys
from typing import Dict, Tuple

import torch

from callbacks import EarlyStopping, NaNGuard, ProgressLogger
from config import load_config
from data import SpectraDataModule
from logging_utils import MetricsWriter, format_metrics, get_logger
from model import build_model
from trainer import Trainer, evaluate_loader
from utils import count_parameters, seed_everything, timer

log = get_logger("train")


class MetricsCallback(ProgressLogger):
    def __init__(self, writer: MetricsWriter, verbose: bool):
        super().__init__(every=0, verbose=False)
        self.writer, self.verbose_epochs = writer, verbose

    def on_epoch_end(self, trainer, epoch, logs):
        self.writer.write(logs)
        if self.verbose_epochs and (epoch == 1 or epoch % 25 == 0):
            log.info("epoch %d %s", epoch, format_metrics(logs))


def run(cfg: Dict, verbose: bool = True, save: bool = True) -> Tuple[Dict, object]:
    seed_everything(cfg["seed"])
    dm = SpectraDataModule(cfg).setup()
    model = build_model(cfg, dm.input_dim)
    log.info("model: %d parameters", count_parameters(model))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])
    writer = MetricsWriter(cfg.get("run_dir") if save else None)
    callbacks = [MetricsCallback(writer, verbose), NaNGuard(),
                 EarlyStopping("val_loss", patience=cfg["train"]["patience"])]
    trainer = Trainer(model, opt, callbacks)
    with timer("training", log if verbose else None):
        trainer.fit(dm.train_loader(), dm.val_loader(), cfg["train"]["epochs"])
    val = evaluate_loader(model, dm.val_loader())
    train = evaluate_loader(model, dm.train_loader())
    result = {"train_r2": train["r2"], "val_r2": val["r2"], "val_rmse": val["rmse"]}
    log.info("best model: %s", format_metrics(result))
    if save and cfg.get("run_dir"):
        os.makedirs(cfg["run_dir"], exist_ok=True)
        torch.save({"model": model.state_dict(), "input_dim": dm.input_dim,
                    "model_cfg": cfg["model"]},
                   os.path.join(cfg["run_dir"], "model.pt"))
        dm.preprocessor.save(os.path.join(cfg["run_dir"], "preprocessor.json"))
        log.info("saved to %s", cfg["run_dir"])
    return result, (model, dm.preprocessor)


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
