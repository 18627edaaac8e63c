"""Train the exhaust-gas temperature surrogate.

    python train.py --config config.yaml [key.sub=value ...]
"""
import argparse
import time

import torch

from callbacks import History, NonFiniteGuard
from config import load_config
from data import build_loaders
from losses import build_loss
from model import build_model
from trainer import Trainer
from utils import count_parameters, get_logger, seed_everything


def run(cfg, verbose=True):
    logger = get_logger("train", cfg.get("log_level", "INFO")) if verbose else None
    seed_everything(int(cfg["seed"]))
    train_loader, val_loader, scaler = build_loaders(cfg)
    model = build_model(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                                  weight_decay=cfg["optim"].get("weight_decay", 0.0))
    p = cfg["precision"]
    if logger:
        logger.info("model: %d parameters; amp=%s (%s); target mean %.2f K std %.3f K",
                    count_parameters(model), p["amp"], p["dtype"], scaler.mean, scaler.std)
    history = History()
    trainer = Trainer(model, build_loss(scaler, cfg), optimizer, scaler, amp=p["amp"],
                      amp_dtype=p["dtype"], callbacks=[history, NonFiniteGuard()], logger=logger,
                      log_every=cfg["train"]["log_every"])
    trainer.fit(train_loader, val_loader, int(cfg["train"]["epochs"]))
    return model, history.records


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    _, records = run(cfg)
    last = records[-1]
    print(f"final: val rmse {last['rmse_k']:.4f} K  train loss {last['train_loss']:.4f} K^2  "
          f"({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
