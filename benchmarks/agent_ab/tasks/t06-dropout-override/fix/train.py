"""Train the churn classifier.

    python train.py --config config.yaml
    python train.py --config config.yaml --lr 3e-4 --epochs 60
"""
from __future__ import annotations

import argparse
import json
import random

import numpy as np
import torch
from torch import nn

from config import apply_overrides, load_config
from data import make_loaders
from model import build_model


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="config.yaml")
    # Overrides for quick sweeps; anything not given keeps the value from --config.
    p.add_argument("--lr", type=float)
    p.add_argument("--weight-decay", dest="weight_decay", type=float)
    p.add_argument("--dropout", type=float)
    p.add_argument("--hidden-dim", dest="hidden_dim", type=int)
    p.add_argument("--epochs", type=int)
    p.add_argument("--batch-size", dest="batch_size", type=int)
    p.add_argument("--seed", type=int)
    p.add_argument("--out", help="write final metrics as JSON here")
    return p.parse_args(argv)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_optimizer(model: nn.Module, cfg):
    if cfg.name == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    if cfg.name == "sgd":
        return torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=cfg.weight_decay)
    raise ValueError(f"unknown optimizer {cfg.name!r}")


def setup(argv=None):
    args = parse_args(argv)
    cfg = load_config(args.config)
    overrides = {k: v for k, v in vars(args).items() if k not in ("config", "out")}
    cfg = apply_overrides(cfg, overrides)
    seed_everything(cfg.train.seed)
    train_loader, val_loader = make_loaders(cfg.data, cfg.train.batch_size, cfg.train.seed)
    model = build_model(cfg.data.n_features, cfg.data.n_classes, cfg.model)
    optimizer = build_optimizer(model, cfg.optim)
    return cfg, model, optimizer, train_loader, val_loader, args


@torch.no_grad()
def evaluate(model: nn.Module, loader) -> tuple[float, float]:
    model.eval()
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    total, correct, loss = 0, 0, 0.0
    for x, y in loader:
        logits = model(x)
        loss += loss_fn(logits, y).item()
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    model.train()
    return loss / total, correct / total


def main(argv=None) -> dict:
    cfg, model, optimizer, train_loader, val_loader, args = setup(argv)
    loss_fn = nn.CrossEntropyLoss()
    history = []
    model.train()
    for epoch in range(1, cfg.train.epochs + 1):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        if epoch % cfg.train.log_every == 0 or epoch == cfg.train.epochs:
            tr_loss, tr_acc = evaluate(model, train_loader)
            va_loss, va_acc = evaluate(model, val_loader)
            history.append(dict(epoch=epoch, train_loss=tr_loss, train_acc=tr_acc, val_loss=va_loss, val_acc=va_acc))
            print(f"epoch {epoch:3d}  train loss {tr_loss:.4f} acc {tr_acc:.3f}  "
                  f"val loss {va_loss:.4f} acc {va_acc:.3f}")
    result = {"config": cfg.to_dict(), "history": history}
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=2)
    return result


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()
