"""Inspection records -> tensors.

``data/inspections.csv`` is the export from the QA database: one row per
inspected part with the 16 scan features, the defect class recorded by the
inspector and the inspector's id.
"""
from __future__ import annotations

import csv

import numpy as np
import torch
from torch.utils.data import TensorDataset

CLASSES = ["ok", "scratch", "dent", "crack", "stain"]
CLASS_TO_INDEX = {name: i for i, name in enumerate(CLASSES)}


def read_records(path: str):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    feature_cols = [c for c in rows[0] if c.startswith("scan_")]
    x = np.array([[float(r[c]) for c in feature_cols] for r in rows], dtype=np.float32)
    y = np.array([CLASS_TO_INDEX[r["defect"]] for r in rows], dtype=np.int64)
    meta = {"part_id": [r["part_id"] for r in rows], "inspector": [r["inspector"] for r in rows]}
    return x, y, meta


def train_val_split(n: int, val_fraction: float, seed: int):
    perm = np.random.default_rng(seed).permutation(n)
    n_val = int(round(n * val_fraction))
    return perm[n_val:], perm[:n_val]


def load_datasets(cfg: dict):
    x, y, meta = read_records(cfg["path"])
    tr, va = train_val_split(len(y), cfg["val_fraction"], cfg["split_seed"])
    mean, std = x[tr].mean(0), x[tr].std(0) + 1e-6
    x = (x - mean) / std
    train = TensorDataset(torch.from_numpy(x[tr]), torch.from_numpy(y[tr]))
    val = TensorDataset(torch.from_numpy(x[va]), torch.from_numpy(y[va]))
    return train, val, {"train_index": tr, "val_index": va, **meta}
