"""Feature pipeline: channel ranking and standardisation.

Most of the 4000 channels are baseline; the pipeline keeps the ``top_k`` channels
that correlate best with the concentration and standardises them. The fitted
pipeline is saved next to the checkpoint so that evaluation applies exactly the
same transformation to new batches.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Dict

import numpy as np

from logging_utils import get_logger

log = get_logger("features")


@dataclass
class Preprocessor:
    channels: np.ndarray   # selected channel indices
    mean: np.ndarray
    scale: np.ndarray

    @property
    def output_dim(self) -> int:
        return len(self.channels)

    def transform(self, spectra: np.ndarray) -> np.ndarray:
        x = spectra[:, self.channels]
        return ((x - self.mean) / self.scale).astype(np.float32)

    def save(self, path: str) -> None:
        with open(path, "w") as fh:
            json.dump({"channels": self.channels.tolist(), "mean": self.mean.tolist(),
                       "scale": self.scale.tolist()}, fh)

    @classmethod
    def load(cls, path: str) -> "Preprocessor":
        with open(path) as fh:
            raw = json.load(fh)
        return cls(np.asarray(raw["channels"], dtype=np.int64),
                   np.asarray(raw["mean"], dtype=np.float32),
                   np.asarray(raw["scale"], dtype=np.float32))


def rank_channels(spectra: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Channels ordered by |Pearson correlation| with the target, best first."""
    xc = spectra - spectra.mean(axis=0)
    yc = target - target.mean()
    denom = np.sqrt((xc ** 2).sum(axis=0) * (yc ** 2).sum()) + 1e-12
    corr = np.abs(xc.T @ yc) / denom
    return np.argsort(-corr, kind="stable")


def fit_preprocessor(table, fcfg: Dict) -> Preprocessor:
    order = rank_channels(table.spectra.astype(np.float64), table.target.astype(np.float64))
    channels = np.sort(order[: fcfg["top_k"]])
    x = table.spectra[:, channels]
    mean = x.mean(axis=0)
    scale = x.std(axis=0) if fcfg.get("standardize", True) else np.ones_like(mean)
    scale = np.where(scale < 1e-6, 1.0, scale)
    log.info("kept %d of %d channels", len(channels), table.spectra.shape[1])
    return Preprocessor(channels, mean.astype(np.float32), scale.astype(np.float32))
