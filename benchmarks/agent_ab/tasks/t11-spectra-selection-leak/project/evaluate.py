"""Score a trained run on a fresh production batch.

    python evaluate.py runs/default --batch-seed 202 [--samples 2000]
"""
from __future__ import annotations

import argparse
import os
from typing import Dict

import torch

from config import load_config
from data import simulate_batch, to_loader
from features import Preprocessor
from logging_utils import format_metrics, get_logger
from model import build_model
from trainer import evaluate_loader

log = get_logger("evaluate")


def evaluate_batch(cfg: Dict, model, pre: Preprocessor, batch_seed: int,
                   num_samples: int = 2000) -> Dict[str, float]:
    table = simulate_batch(cfg, batch_seed, num_samples)
    return evaluate_loader(model, to_loader(table, pre, 512, shuffle=False))


def load_run(cfg: Dict, run_dir: str):
    ckpt = torch.load(os.path.join(run_dir, "model.pt"))
    model = build_model({**cfg, "model": ckpt.get("model_cfg", cfg["model"])}, ckpt["input_dim"])
    model.load_state_dict(ckpt["model"])
    return model, Preprocessor.load(os.path.join(run_dir, "preprocessor.json"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--batch-seed", type=int, default=202)
    ap.add_argument("--samples", type=int, default=2000)
    args = ap.parse_args()
    cfg = load_config(args.config)
    model, pre = load_run(cfg, args.run_dir)
    res = evaluate_batch(cfg, model, pre, args.batch_seed, args.samples)
    log.info("batch %d: %s", args.batch_seed, format_metrics(res))


if __name__ == "__main__":
    main()
