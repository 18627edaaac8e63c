"""Train the convolutional tagger.

    python train.py --config config.yaml
"""
import argparse
import time

import torch
import torch.nn.functional as F
import yaml

from data import LABEL_PAD, build_loaders
from evaluate import evaluate
from model import build_model


def load_config(path):
    with open(path) as f:
        return yaml.safe_load(f)


def train(cfg, verbose=True):
    torch.manual_seed(cfg["seed"])
    train_loader, val_loader = build_loaders(cfg)
    model = build_model(cfg)
    t = cfg["train"]
    opt = torch.optim.Adam(model.parameters(), lr=t["lr"], weight_decay=t["weight_decay"])
    history, step = [], 0
    for epoch in range(t["epochs"]):
        model.train()
        loss_sum, n_batches = 0.0, 0
        for tokens, targets in train_loader:
            logits = model(tokens)
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=LABEL_PAD)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            loss_sum += loss.item()
            n_batches += 1
            if verbose and step % t["log_every"] == 0:
                print(f"  step {step:5d}  loss {loss.item():.4f}")
        val = evaluate(model, val_loader, cfg)
        rec = {"epoch": epoch, "train_loss": loss_sum / n_batches,
               "val_loss": val["loss"], "val_acc": val["accuracy"]}
        history.append(rec)
        if verbose:
            print(f"epoch {epoch}: train loss {rec['train_loss']:.4f} | "
                  f"val loss {rec['val_loss']:.4f}  val token acc {rec['val_acc']:.3f}")
    return model, history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    t0 = time.time()
    train(load_config(args.config))
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
