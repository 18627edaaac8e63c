"""Pump condition records: CSV reading, the held-out split and tensors.

Each row is one hourly snapshot of a pump (line, pump id, operating point, vibration) with the
fault class the maintenance team assigned after inspection.
"""
from __future__ import annotations

import csv
from typing import Dict, List, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from features import FeaturePipeline


def read_csv(path: str) -> Dict[str, np.ndarray]:
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise ValueError(f"{path}: no rows")
    out: Dict[str, np.ndarray] = {}
    for key in rows[0]:
        values = [r[key] for r in rows]
        try:
            out[key] = np.array([float(v) for v in values])
        except ValueError:
            out[key] = np.array(values)
    return out


def encode_labels(cfg: Dict, table: Dict[str, np.ndarray]) -> np.ndarray:
    index = {name: i for i, name in enumerate(cfg["data"]["classes"])}
    unknown = sorted(set(table[cfg["data"]["target"]]) - set(index))
    if unknown:
        raise ValueError(f"unknown fault labels: {unknown}")
    return np.array([index[v] for v in table[cfg["data"]["target"]]], dtype=np.int64)


def subset(table: Dict[str, np.ndarray], idx: np.ndarray) -> Dict[str, np.ndarray]:
    return {k: v[idx] for k, v in table.items()}


def split(cfg: Dict, table: Dict[str, np.ndarray]) -> Tuple[Dict, Dict]:
    n = len(next(iter(table.values())))
    rng = np.random.default_rng(cfg["data"]["split_seed"])
    perm = rng.permutation(n)
    n_val = int(round(cfg["data"]["val_fraction"] * n))
    return subset(table, perm[n_val:]), subset(table, perm[:n_val])


def to_tensors(cfg: Dict, pipe: FeaturePipeline, table: Dict[str, np.ndarray]) -> TensorDataset:
    x = torch.tensor(pipe.transform(table), dtype=torch.float32)
    y = torch.tensor(encode_labels(cfg, table), dtype=torch.long)
    return TensorDataset(x, y)


def build_data(cfg: Dict):
    table = read_csv(cfg["data"]["train_csv"])
    train, val = split(cfg, table)
    pipe = FeaturePipeline(cfg["data"]["features"], cfg["data"]["log_features"]).fit(train)
    bs = cfg["data"]["batch_size"]
    train_dl = DataLoader(to_tensors(cfg, pipe, train), batch_size=bs, shuffle=True)
    val_dl = DataLoader(to_tensors(cfg, pipe, val), batch_size=1024, shuffle=False)
    return train_dl, val_dl, pipe


def class_shares(cfg: Dict, table: Dict[str, np.ndarray]) -> List[Tuple[str, float]]:
    y = encode_labels(cfg, table)
    counts = np.bincount(y, minlength=len(cfg["data"]["classes"]))
    return [(c, float(n) / len(y)) for c, n in zip(cfg["data"]["classes"], counts)]
