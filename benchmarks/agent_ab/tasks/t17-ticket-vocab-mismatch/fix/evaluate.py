"""Evaluate a trained ticket router on the held-out test month.

    python evaluate.py --config config.yaml [--split test]
"""
import argparse
import os

import torch

import corpus
from config import load_config
from data import load_split, make_loader
from metrics import classification_report, predict
from model import build_model
from tokenizer import Vocab
from utils import get_logger


def evaluate(cfg, split="test", verbose=True):
    logger = get_logger("eval", cfg.get("log_level", "INFO") if verbose else "WARNING")
    out = os.path.join(cfg["output_dir"], cfg["run_name"])
    ckpt = os.path.join(out, "model.pt")
    texts, labels = load_split(split, cfg)
    # the ids must be the training run's: never rebuild the vocabulary from evaluation texts
    vocab = Vocab.load(os.path.join(out, "vocab.json"))
    loader = make_loader(texts, labels, vocab, cfg)
    model = build_model(cfg, len(corpus.QUEUES), vocab.pad_id)
    missing, unexpected = model.load_state_dict(torch.load(ckpt), strict=True)
    logger.info("loaded %s (missing keys: %d, unexpected: %d)", ckpt, len(missing), len(unexpected))
    preds, gold = predict(model, loader)
    rep = classification_report(preds, gold, len(corpus.QUEUES))
    logger.info("%s: %d tickets, unk rate %.3f", split, len(texts), loader.dataset.unk_rate())
    logger.info("%s acc %.3f  macro-F1 %.3f  recall per queue %s", split, rep["acc"], rep["macro_f1"],
                " ".join(f"{q}={r:.2f}" for q, r in zip(corpus.QUEUES, rep["per_class_recall"])))
    return rep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--split", default="test", choices=["train", "val", "test"])
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    evaluate(load_config(args.config, args.overrides), args.split)


if __name__ == "__main__":
    main()
