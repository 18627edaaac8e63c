"""Loading of the plant logger export (one row per hour) into tensors.

The export is a CSV with one column per probe; records where the logger
dropped a field have empty cells, and a probe read that failed is written as
-9999 (logger convention).  Both are treated as missing and the hour is dropped.
"""
from __future__ import annotations

import csv
import math

import numpy as np
import torch
from torch.utils.data import TensorDataset

SENSOR_COLUMNS = ["air_temp", "humidity", "pressure", "wind_speed", "irradiance", "panel_temp", "cloud_cover"]
TARGET_COLUMN = "power_kw"
MISSING_VALUE = -9999.0  # written by the logger when a probe read fails


def read_export(path: str) -> dict[str, np.ndarray]:
    """Read the CSV into float columns; empty cells and failed reads (-9999) become NaN."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    columns = {}
    for name in reader.fieldnames:
        values = np.array([float(r[name]) if r[name] != "" else np.nan for r in rows])
        values[values == MISSING_VALUE] = np.nan
        columns[name] = values
    return columns


def build_features(columns: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    hour = columns["timestamp"] % 24
    feats = [columns[c] for c in SENSOR_COLUMNS]
    feats += [np.sin(2 * math.pi * hour / 24), np.cos(2 * math.pi * hour / 24)]
    x = np.stack(feats, axis=1)
    y = columns[TARGET_COLUMN]
    keep = ~(np.isnan(x).any(axis=1) | np.isnan(y))
    return x[keep], y[keep]


def feature_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.mean(dim=0), x.std(dim=0).clamp_min(1e-6)


def load_dataset(path: str) -> TensorDataset:
    x, y = build_features(read_export(path))
    x = torch.tensor(x, dtype=torch.float32)
    y = torch.tensor(y, dtype=torch.float32).unsqueeze(1)
    return TensorDataset(x, y)


def load_splits(train_path: str, holdout_path: str):
    """Training set from the raw export, evaluation set from the checked hold-out."""
    train = load_dataset(train_path)
    holdout = load_dataset(holdout_path)
    return train, holdout, feature_stats(train.tensors[0])
