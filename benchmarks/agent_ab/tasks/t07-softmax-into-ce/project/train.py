"""Train the IMU gesture classifier: python train.py [--epochs N] [--lr LR]"""
from __future__ import annotations

import argparse
import dataclasses
import time

import torch

from config import Config
from data import build_loaders
from losses import build_criterion
from model import build_model


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    n, correct, loss = 0, 0, 0.0
    for x, y in loader:
        out = model(x)
        loss += criterion(out, y).item() * y.numel()
        correct += (out.argmax(dim=1) == y).sum().item()
        n += y.numel()
    model.train()
    return loss / n, correct / n


def train(cfg: Config, verbose: bool = True):
    torch.manual_seed(cfg.seed)
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    criterion = build_criterion(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    history = []
    start = time.time()
    for epoch in range(1, cfg.epochs + 1):
        running, seen = 0.0, 0
        for x, y in train_loader:
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item() * y.numel()
            seen += y.numel()
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        history.append({"epoch": epoch, "train_loss": running / seen, "val_loss": val_loss, "val_acc": val_acc})
        if verbose:
            print(f"epoch {epoch:2d}  train loss {running / seen:.4f}  val loss {val_loss:.4f}  "
                  f"val acc {val_acc:.3f}  ({time.time() - start:.0f}s)")
    return model, history


def main():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args()
    torch.set_num_threads(1)
    train(Config(**vars(args)))


if __name__ == "__main__":
    main()
