"""Train the keyword classifier.

    python train.py --config config.yaml
"""
import argparse
import time

import torch
import torch.nn.functional as F
import yaml

from data import build_loaders
from model import build_model


def load_config(path):
    with open(path) as f:
        return yaml.safe_load(f)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for tokens, lengths, labels in loader:
        logits = model(tokens, lengths)
        loss_sum += F.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(-1) == labels).sum().item()
        total += labels.numel()
    model.train()
    return {"loss": loss_sum / total, "acc": correct / total}


def train(cfg, verbose=True):
    torch.manual_seed(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    t = cfg["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=t["lr"], weight_decay=t["weight_decay"])
    history = []
    step = 0
    for epoch in range(t["epochs"]):
        model.train()
        run_loss, run_correct, run_n = 0.0, 0, 0
        for tokens, lengths, labels in train_loader:
            logits = model(tokens, lengths)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            run_loss += loss.item() * labels.numel()
            run_correct += (logits.argmax(-1) == labels).sum().item()
            run_n += labels.numel()
            if verbose and step % t["log_every"] == 0:
                print(f"  step {step:5d}  loss {loss.item():.4f}")
        val = evaluate(model, val_loader)
        rec = {"epoch": epoch, "train_loss": run_loss / run_n,
               "train_acc": run_correct / run_n, "val_loss": val["loss"], "val_acc": val["acc"]}
        history.append(rec)
        if verbose:
            print(f"epoch {epoch}: train loss {rec['train_loss']:.4f} acc {rec['train_acc']:.3f} | "
                  f"val loss {rec['val_loss']:.4f} acc {rec['val_acc']:.3f}")
    return model, history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    cfg = load_config(args.config)
    t0 = time.time()
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
