"""Per-sample loss weights from class weights.

Schemes (config ``weighting.scheme``):
  none      every sample weight 1
  manual    ``weighting.class_weights`` maps class names to weights (others 1)
  balanced  n_samples / (n_classes * count(class)), computed on the training labels
With ``weighting.normalize`` the weights are rescaled to mean 1 over the training set.
"""
from __future__ import annotations

from typing import Dict

import numpy as np


def class_weight_vector(labels: np.ndarray, cfg: Dict) -> np.ndarray:
    names = cfg["data"]["class_names"]
    scheme = cfg["weighting"]["scheme"]
    k = len(names)
    if scheme == "none":
        return np.ones(k, dtype=np.float32)
    if scheme == "manual":
        vec = np.ones(k, dtype=np.float32)
        for name, value in (cfg["weighting"].get("class_weights") or {}).items():
            vec[names.index(name)] = float(value)
        return vec
    if scheme == "balanced":
        counts = np.bincount(labels.reshape(-1).astype(np.int64), minlength=k).astype(np.float64)
        return (labels.size / (k * np.maximum(counts, 1))).astype(np.float32)
    raise ValueError(f"unknown weighting scheme {scheme!r}")


def sample_weights(labels: np.ndarray, cfg: Dict) -> np.ndarray:
    """Weight of every sample: its class's weight (labels as read from the table)."""
    vec = class_weight_vector(labels, cfg)
    w = vec[labels.reshape(-1).astype(np.int64)]
    if cfg["weighting"].get("normalize"):
        w = w / w.mean()
    return w.astype(np.float32)


def describe(vec: np.ndarray, names) -> str:
    return ", ".join(f"{n}={v:.2f}" for n, v in zip(names, vec))
