import argparse
import logging
import os
import random

import numpy as np
import torch

from config import Config
from trainer import MusicTrainer


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def parse_args():
    p = argparse.ArgumentParser(description="Train a Music Transformer on tokenised MAESTRO performances")
    p.add_argument("--config", default="configs/maestro.yaml")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--resume", default=None)
    p.add_argument("--no-amp", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(levelname)s | %(name)s | %(message)s")
    cfg = Config.from_yaml(args.config) if os.path.exists(args.config) else Config()
    if args.epochs is not None:
        cfg.train.epochs = args.epochs
    if args.batch_size is not None:
        cfg.train.batch_size = args.batch_size
    if args.resume:
        cfg.train.resume = args.resume
    if args.no_amp:
        cfg.train.amp = False
    seed_everything(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type != "cuda":
        cfg.train.amp = False
    os.makedirs(cfg.train.ckpt_dir, exist_ok=True)
    cfg.dump(os.path.join(cfg.train.ckpt_dir, "config.yaml"))
    trainer = MusicTrainer(cfg, device)
    n_params = sum(p.numel() for p in trainer.model.parameters())
    logging.getLogger("train").info("model has %.1fM parameters", n_params / 1e6)
    trainer.fit()


if __name__ == "__main__":
    main()
