"""Train the surrogate regressor.

    python train.py --config config.yaml [key.sub=value ...]
"""
import argparse
import time

import torch

from callbacks import History, NonFiniteGuard
from config import load_config
from data import build_loaders
from model import build_model
from schedules import build_optimizer, build_scheduler, describe_schedule
from trainer import Trainer
from utils import count_parameters, get_logger, seed_everything


def run(cfg, verbose=True):
    logger = get_logger("train", cfg.get("log_level", "INFO")) if verbose else None
    seed_everything(int(cfg["seed"]))
    train_iter, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    optimizer = build_optimizer(model, cfg)
    scheduler = build_scheduler(optimizer, cfg)
    if logger:
        logger.info("model: %d parameters; %s", count_parameters(model), describe_schedule(cfg))
    history = History()
    t = cfg["train"]
    trainer = Trainer(model, optimizer, scheduler, grad_clip=cfg["optim"].get("grad_clip"),
                      callbacks=[history, NonFiniteGuard()], logger=logger,
                      log_every=t["log_every"], eval_every=t["eval_every"])
    state = trainer.fit(train_iter, val_loader, int(t["steps"]))
    return model, history.records, state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    _, records, state = run(cfg)
    last = records[-1] if records else {}
    print(f"finished at step {state['step']}: val mse {last.get('val_mse', float('nan')):.4f} "
          f"({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
