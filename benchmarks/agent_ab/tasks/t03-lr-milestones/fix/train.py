"""Train the spiral classifier.

    python train.py --config config.yaml
"""
import argparse
import json
import time

import torch
import yaml

from data import build_loaders
from engine import evaluate, train_one_epoch
from model import build_model
from optim import build_optimizer, build_scheduler


def load_config(path):
    with open(path) as f:
        return yaml.safe_load(f)


def train(cfg, verbose=True):
    torch.manual_seed(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    optimizer = build_optimizer(model, cfg)
    lr_scheduler = build_scheduler(optimizer, cfg)
    history = []
    for epoch in range(cfg["schedule"]["epochs"]):
        tr = train_one_epoch(model, train_loader, optimizer, epoch)
        lr_scheduler.step()  # milestones are in epochs
        va = evaluate(model, val_loader)
        history.append({"epoch": epoch, "train_loss": tr["loss"], "train_acc": tr["acc"],
                        "val_loss": va["loss"], "val_acc": va["acc"]})
        if verbose:
            print(f"epoch {epoch:2d}  train loss {tr['loss']:.4f} acc {tr['acc']:.3f}  |  "
                  f"val loss {va['loss']:.4f} acc {va['acc']:.3f}")
    return model, history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--history", default=None, help="write the per-epoch metrics as JSON")
    args = ap.parse_args()
    t0 = time.time()
    _, history = train(load_config(args.config))
    if args.history:
        with open(args.history, "w") as f:
            json.dump(history, f, indent=1)
    print(f"best val acc {max(h['val_acc'] for h in history):.3f}  ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
