"""Train the ticket router: python train.py [config.yaml] [section.key=value ...]"""
from __future__ import annotations

import os
import sys
from typing import Dict, List, Tuple

import torch

from callbacks import NaNGuard, ProgressLogger
from config import load_config
from data import generate_split
from logging_utils import MetricsWriter, get_logger
from metrics import classification_report
from model import build_model
from trainer import Trainer, evaluate
from utils import count_parameters, seed_everything, timer
from vocab import build_label_map, build_vocab, encode_batch

log = get_logger("train")


class WriterCallback(ProgressLogger):
    def __init__(self, writer: MetricsWriter, verbose: bool):
        super().__init__(every=0, verbose=verbose)
        self.writer = writer

    def on_epoch_end(self, trainer, epoch, logs):
        self.writer.write(logs)
        super().on_epoch_end(trainer, epoch, logs)


def run(cfg: Dict, verbose: bool = True) -> Tuple[Dict, List[Dict]]:
    seed_everything(cfg["seed"])
    train_tickets = generate_split(cfg, "train")
    val_tickets = generate_split(cfg, "val")
    vocab = build_vocab(train_tickets)
    label_map = build_label_map(train_tickets)
    train = encode_batch(train_tickets, vocab, label_map)
    val = encode_batch(val_tickets, vocab, label_map)

    model = build_model(cfg, len(vocab), len(label_map))
    if verbose:
        log.info("%d tickets, vocab %d, %d categories, %d parameters", len(train_tickets),
                 len(vocab), len(label_map), count_parameters(model))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"].get("weight_decay", 0.0))
    writer = MetricsWriter(cfg.get("run_dir"))
    trainer = Trainer(model, opt, len(label_map), [WriterCallback(writer, verbose), NaNGuard()])
    with timer("training", log if verbose else None):
        history = trainer.fit(train, val, cfg["train"]["epochs"], cfg["train"]["batch_size"],
                              cfg["seed"])

    final = evaluate(model, *val, len(label_map))
    names = sorted(label_map, key=label_map.get)
    if verbose:
        for row in classification_report(final["confusion"], names):
            log.info("val %-16s f1=%.3f support=%d", row["class"], row["f1"], row["support"])
    if cfg.get("run_dir"):
        os.makedirs(cfg["run_dir"], exist_ok=True)
        torch.save({"model": model.state_dict(), "vocab": vocab.state_dict(),
                    "num_classes": len(label_map), "config": cfg},
                   os.path.join(cfg["run_dir"], "checkpoint.pt"))
        log.info("saved checkpoint to %s", cfg["run_dir"])
    return {"val_acc": final["acc"], "val_macro_f1": final["macro_f1"]}, history


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args.pop(0) if args and args[0].endswith((".yaml", ".yml")) else "config.yaml"
    run(load_config(path, args))
