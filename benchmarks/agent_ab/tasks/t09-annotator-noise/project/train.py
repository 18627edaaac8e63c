"""Train the surface-defect classifier: python train.py [--config config.yaml]"""
from __future__ import annotations

import argparse

import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader

from data import CLASSES, load_datasets
from evaluate import accuracy, confusion_matrix
from model import DefectClassifier


def train(cfg: dict, verbose: bool = True):
    tcfg = cfg["train"]
    torch.manual_seed(tcfg["seed"])
    train_set, val_set, _ = load_datasets(cfg["data"])
    model = DefectClassifier(train_set.tensors[0].shape[1], len(CLASSES), **cfg["model"])
    loader = DataLoader(train_set, batch_size=tcfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(tcfg["seed"]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for epoch in range(1, tcfg["epochs"] + 1):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
        tr_acc, va_acc = accuracy(model, train_set), accuracy(model, val_set)
        history.append({"epoch": epoch, "train_loss": total / len(train_set), "train_acc": tr_acc, "val_acc": va_acc})
        if verbose and (epoch % 5 == 0 or epoch == 1):
            print(f"epoch {epoch:3d}  loss {total / len(train_set):.4f}  train acc {tr_acc:.3f}  val acc {va_acc:.3f}")
    if verbose:
        print("val confusion (rows = label, cols = prediction):", CLASSES)
        print(confusion_matrix(model, val_set, len(CLASSES)))
    return model, history


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--hidden", type=int)
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    if args.epochs:
        cfg["train"]["epochs"] = args.epochs
    if args.hidden:
        cfg["model"]["hidden"] = args.hidden
    torch.set_num_threads(1)
    train(cfg)


if __name__ == "__main__":
    main()
