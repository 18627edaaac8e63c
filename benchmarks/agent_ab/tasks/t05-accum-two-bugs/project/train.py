"""Train the student network.

    python train.py --config config.yaml
"""
import argparse
import time

import torch
import yaml

from data import build_loaders
from losses import build_criterion
from model import build_model
from trainer import Trainer


def load_config(path):
    with open(path) as f:
        return yaml.safe_load(f)


def build_optimizer(model, cfg):
    o = cfg["optim"]
    return torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                           weight_decay=o["weight_decay"])


def run(cfg, verbose=True):
    torch.manual_seed(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    t = cfg["train"]
    trainer = Trainer(model, build_criterion(cfg), build_optimizer(model, cfg),
                      accum_steps=t["accum_steps"], log_every=t["log_every"] if verbose else 0)
    history = trainer.fit(train_loader, val_loader, t["epochs"], verbose=verbose)
    return model, history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    t0 = time.time()
    run(load_config(args.config))
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
