"""Evaluate a saved checkpoint on a fresh export of tickets.

    python evaluate.py runs/default [--split test] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Dict

import torch

from data import generate_split
from logging_utils import get_logger
from metrics import classification_report
from model import build_model
from trainer import evaluate
from vocab import Vocab, build_label_map, encode_batch

log = get_logger("evaluate")


def evaluate_run(run_dir: str, split: str = "test") -> Dict:
    ckpt = torch.load(os.path.join(run_dir, "checkpoint.pt"), weights_only=False)
    cfg = ckpt["config"]
    vocab = Vocab.from_state_dict(ckpt["vocab"])
    model = build_model(cfg, len(vocab), ckpt["num_classes"])
    model.load_state_dict(ckpt["model"])
    # the class indices are those of the training export, rebuilt the same way as in train.py
    label_map = build_label_map(generate_split(cfg, "train"))
    tickets = generate_split(cfg, split)
    ids, labels = encode_batch(tickets, vocab, label_map)
    res = evaluate(model, ids, labels, ckpt["num_classes"])
    names = sorted(label_map, key=label_map.get)
    report = classification_report(res["confusion"], names)
    return {"acc": res["acc"], "macro_f1": res["macro_f1"], "per_class": report}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--split", default="test", choices=["val", "test"])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    out = evaluate_run(args.run_dir, args.split)
    log.info("%s: acc=%.4f macro_f1=%.4f", args.split, out["acc"], out["macro_f1"])
    for row in out["per_class"]:
        log.info("  %-16s f1=%.3f support=%d", row["class"], row["f1"], row["support"])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
