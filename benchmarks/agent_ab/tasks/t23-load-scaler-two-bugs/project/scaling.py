"""Feature and target scalers (fitted on the training split only)."""
from __future__ import annotations

import json
from typing import Optional

import numpy as np

_FORWARD = {"none": lambda v: v, "log1p": np.log1p, "sqrt": np.sqrt}
_BACKWARD = {"none": lambda v: v, "log1p": np.expm1, "sqrt": np.square}


class FeatureScaler:
    def fit(self, x: np.ndarray) -> "FeatureScaler":
        self.mean = x.mean(axis=0)
        self.std = x.std(axis=0)
        self.std[self.std < 1e-8] = 1.0
        return self

    def transform(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / self.std


class TargetScaler:
    """y -> standardise(f(y)) with f in {none, log1p, sqrt}; inverse_transform maps back to y."""

    def __init__(self, transform: str = "none"):
        if transform not in _FORWARD:
            raise ValueError(f"unknown target transform {transform!r}")
        self.kind = transform
        self.mean: Optional[float] = None
        self.std: Optional[float] = None

    def fit(self, y: np.ndarray) -> "TargetScaler":
        t = _FORWARD[self.kind](np.asarray(y, dtype=np.float64))
        self.mean, self.std = float(t.mean()), float(t.std() or 1.0)
        return self

    def transform(self, y):
        return (_FORWARD[self.kind](y) - self.mean) / self.std

    def inverse_transform(self, z):
        # undo the transform, then undo the standardisation
        return _BACKWARD[self.kind](z) * self.std + self.mean

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "mean": self.mean, "std": self.std})

    @classmethod
    def from_json(cls, text: str) -> "TargetScaler":
        d = json.loads(text)
        s = cls(d["kind"])
        s.mean, s.std = d["mean"], d["std"]
        return s
