"""Feature pipeline: optional log of the vibration channels, then standardisation with the
training statistics. The fitted pipeline is saved with the model so that new data is
transformed exactly as the training data was."""
from __future__ import annotations

import json
from typing import Dict, List, Sequence

import numpy as np


class FeaturePipeline:
    def __init__(self, features: Sequence[str], log_features: Sequence[str] = ()):
        self.features: List[str] = list(features)
        self.log_features: List[str] = [f for f in log_features if f in self.features]
        self.mean: np.ndarray = np.zeros(len(self.features))
        self.std: np.ndarray = np.ones(len(self.features))

    def _raw(self, table: Dict[str, np.ndarray]) -> np.ndarray:
        missing = [f for f in self.features if f not in table]
        if missing:
            raise KeyError(f"missing feature columns: {missing}")
        cols = []
        for f in self.features:
            col = np.asarray(table[f], dtype=np.float64)
            cols.append(np.log(np.maximum(col, 1e-6)) if f in self.log_features else col)
        return np.stack(cols, axis=1)

    def fit(self, table: Dict[str, np.ndarray]) -> "FeaturePipeline":
        raw = self._raw(table)
        self.mean = raw.mean(axis=0)
        self.std = raw.std(axis=0)
        self.std[self.std < 1e-8] = 1.0
        return self

    def transform(self, table: Dict[str, np.ndarray]) -> np.ndarray:
        return (self._raw(table) - self.mean) / self.std

    def to_json(self) -> str:
        return json.dumps({"features": self.features, "log_features": self.log_features,
                           "mean": self.mean.tolist(), "std": self.std.tolist()})

    @classmethod
    def from_json(cls, text: str) -> "FeaturePipeline":
        d = json.loads(text)
        pipe = cls(d["features"], d["log_features"])
        pipe.mean, pipe.std = np.array(d["mean"]), np.array(d["std"])
        return pipe
