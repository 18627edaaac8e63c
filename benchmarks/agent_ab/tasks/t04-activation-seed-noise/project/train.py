"""Train one model.

    python train.py --config config.yaml [--seed N]
"""
import argparse

import torch
import torch.nn.functional as F

from data import build_loaders
from model import build_model
from utils import load_config, set_seed


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = total = 0
    loss = 0.0
    for x, y in loader:
        logits = model(x)
        loss += F.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(1) == y).sum().item()
        total += len(y)
    model.train()
    return {"loss": loss / total, "acc": correct / total}


def train(cfg, seed, verbose=False):
    set_seed(seed)
    train_loader, val_loader = build_loaders(cfg, seed)
    model = build_model(cfg)
    t = cfg["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=t["lr"], weight_decay=t["weight_decay"])
    for epoch in range(t["epochs"]):
        model.train()
        loss_sum, n = 0.0, 0
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item() * len(y)
            n += len(y)
        if verbose and (epoch + 1) % 10 == 0:
            print(f"epoch {epoch + 1:3d}  train loss {loss_sum / n:.4f}")
    return model, evaluate(model, val_loader)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    cfg = load_config(args.config)
    seed = cfg["seed"] if args.seed is None else args.seed
    _, metrics = train(cfg, seed, verbose=True)
    print(f"seed {seed}: final val acc {metrics['acc']:.4f}  val loss {metrics['loss']:.4f}")


if __name__ == "__main__":
    main()
