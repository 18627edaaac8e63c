"""Score a trained run on a new labelled export:
    python evaluate_new.py data/march_2026.csv [RUN_DIR]   (RUN_DIR defaults to runs/latest)

Uses the feature pipeline fitted at training time (features.json), never refits it.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Dict

import torch

from data import class_shares, encode_labels, read_csv
from features import FeaturePipeline
from metrics import confusion_matrix, format_confusion, report
from model import build_model


def evaluate_file(csv_path: str, run_dir: str = "runs/latest", verbose: bool = True) -> Dict[str, float]:
    with open(os.path.join(run_dir, "config.json")) as fh:
        cfg = json.load(fh)
    with open(os.path.join(run_dir, "features.json")) as fh:
        pipe = FeaturePipeline.from_json(fh.read())
    model = build_model(cfg)
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    model.eval()
    table = read_csv(csv_path)
    x = torch.tensor(pipe.transform(table), dtype=torch.float32)
    y = torch.tensor(encode_labels(cfg, table), dtype=torch.long)
    with torch.no_grad():
        pred = model(x).argmax(-1)
    cm = confusion_matrix(pred, y, len(cfg["data"]["classes"]))
    out = report(cm, cfg["data"]["classes"])
    if verbose:
        print(f"{csv_path}: {len(y)} rows")
        print("class shares: " + ", ".join(f"{c}={s:.3f}" for c, s in class_shares(cfg, table)))
        print(format_confusion(cm, cfg["data"]["classes"]))
        print(" ".join(f"{k}={v:.4f}" for k, v in out.items()))
    return out


if __name__ == "__main__":
    evaluate_file(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "runs/latest")
