"""Train the ticket router.

    python train.py --config config.yaml [key.sub=value ...]

Writes runs/<run_name>/model.pt (best val accuracy), vocab.json and history.jsonl.
"""
import argparse
import os
import time

import torch
from torch import nn

import corpus
from callbacks import Checkpoint, EarlyStopping, History
from config import load_config
from data import load_or_build_vocab, load_split, make_loader
from metrics import classification_report, predict
from model import build_model
from utils import AverageMeter, count_parameters, get_logger, seed_everything


def run_dir(cfg):
    return os.path.join(cfg["output_dir"], cfg["run_name"])


def train(cfg, verbose=True):
    logger = get_logger("train", cfg.get("log_level", "INFO") if verbose else "WARNING")
    seed_everything(int(cfg["seed"]))
    out = run_dir(cfg)
    os.makedirs(out, exist_ok=True)

    train_texts, train_labels = load_split("train", cfg)
    val_texts, val_labels = load_split("val", cfg)
    vocab = load_or_build_vocab(None, train_texts, cfg)
    vocab.save(os.path.join(out, "vocab.json"))
    train_loader = make_loader(train_texts, train_labels, vocab, cfg, shuffle=True, seed=int(cfg["seed"]))
    val_loader = make_loader(val_texts, val_labels, vocab, cfg)
    logger.info("vocab %d tokens; train %d, val %d; val unk rate %.3f", len(vocab), len(train_texts),
                len(val_texts), val_loader.dataset.unk_rate())

    num_classes = len(corpus.QUEUES)
    model = build_model(cfg, num_classes, vocab.pad_id)
    logger.info("model: %d parameters", count_parameters(model))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    history = History(os.path.join(out, "history.jsonl"))
    callbacks = [history, Checkpoint(model, os.path.join(out, "model.pt"), monitor="val_acc", mode="max"),
                 EarlyStopping(monitor="val_acc", mode="max", patience=cfg["train"]["patience"])]
    state = {"step": 0, "metrics": {}, "stop": False}
    for epoch in range(cfg["train"]["epochs"]):
        meter, correct, seen = AverageMeter(), 0, 0
        for x, y in train_loader:
            logits = model(x)
            loss = loss_fn(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.update(loss.item(), len(y))
            correct += (logits.argmax(-1) == y).sum().item()
            seen += len(y)
            state["step"] += 1
        preds, labels = predict(model, val_loader)
        rep = classification_report(preds, labels, num_classes)
        state.update(epoch=epoch, metrics={"train_loss": meter.avg, "train_acc": correct / seen,
                                           "val_acc": rep["acc"], "val_macro_f1": rep["macro_f1"]})
        for cb in callbacks:
            cb.on_eval_end(state)
        logger.info("epoch %d  train loss %.4f  train acc %.3f  val acc %.3f  val macro-F1 %.3f",
                    epoch, meter.avg, correct / seen, rep["acc"], rep["macro_f1"])
        if state["stop"]:
            break
    return history.records


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    records = train(cfg)
    best = max(r["val_acc"] for r in records)
    print(f"best val acc {best:.3f}; checkpoint in {run_dir(cfg)} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
