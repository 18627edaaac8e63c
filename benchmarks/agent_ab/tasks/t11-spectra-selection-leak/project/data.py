"""Spectra simulator and the data module.

Each production batch is a table of absorbance spectra (one row per sample) with a
lab-measured concentration. The instrument response (which channels carry the
analyte) is fixed; batches differ only in the samples drawn.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from features import Preprocessor, fit_preprocessor
from logging_utils import get_logger

log = get_logger("data")

INSTRUMENT_SEED = 2024   # the instrument's response never changes between batches


@dataclass
class SpectraTable:
    sample_ids: np.ndarray   # (n,) int64, unique across batches
    spectra: np.ndarray      # (n, channels) float32
    target: np.ndarray       # (n,) float32

    def __len__(self) -> int:
        return len(self.target)

    def subset(self, idx: np.ndarray) -> "SpectraTable":
        return SpectraTable(self.sample_ids[idx], self.spectra[idx], self.target[idx])


def instrument_response(num_channels: int, active: int) -> np.ndarray:
    rng = np.random.default_rng(INSTRUMENT_SEED)
    weights = np.zeros(num_channels, dtype=np.float64)
    channels = rng.choice(num_channels, active, replace=False)
    weights[channels] = rng.normal(0.0, 1.0, active)
    return weights


def simulate_batch(cfg: Dict, batch_seed: int, num_samples: int) -> SpectraTable:
    dcfg = cfg["data"]
    weights = instrument_response(dcfg["num_channels"], dcfg["active_channels"])
    rng = np.random.default_rng(batch_seed)
    spectra = rng.normal(size=(num_samples, dcfg["num_channels"]))
    target = spectra @ weights + rng.normal(0.0, dcfg["noise_std"], num_samples)
    ids = batch_seed * 1_000_000 + np.arange(num_samples)
    return SpectraTable(ids.astype(np.int64), spectra.astype(np.float32), target.astype(np.float32))


def split_indices(n: int, val_fraction: float, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    perm = np.random.default_rng(seed).permutation(n)
    n_val = int(round(n * val_fraction))
    return np.sort(perm[n_val:]), np.sort(perm[:n_val])


def to_loader(table: SpectraTable, pre: Preprocessor, batch_size: int, shuffle: bool,
              seed: int = 0) -> DataLoader:
    x = torch.from_numpy(pre.transform(table.spectra))
    y = torch.from_numpy(table.target).unsqueeze(1)
    gen = torch.Generator().manual_seed(seed)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=shuffle, generator=gen)


class SpectraDataModule:
    def __init__(self, cfg: Dict):
        self.cfg = cfg
        self.table: SpectraTable = None
        self.preprocessor: Preprocessor = None

    def setup(self) -> "SpectraDataModule":
        dcfg = self.cfg["data"]
        self.table = simulate_batch(self.cfg, dcfg["batch_seed"], dcfg["num_samples"])
        self.train_idx, self.val_idx = split_indices(len(self.table), dcfg["val_fraction"],
                                                     self.cfg["seed"])
        overlap = np.intersect1d(self.table.sample_ids[self.train_idx],
                                 self.table.sample_ids[self.val_idx])
        log.info("batch %d: %d samples, train %d / val %d, shared ids %d", dcfg["batch_seed"],
                 len(self.table), len(self.train_idx), len(self.val_idx), len(overlap))
        self.preprocessor = fit_preprocessor(self.table, self.cfg["features"])
        return self

    @property
    def input_dim(self) -> int:
        return self.preprocessor.output_dim

    def train_loader(self) -> DataLoader:
        return to_loader(self.table.subset(self.train_idx), self.preprocessor,
                         self.cfg["train"]["batch_size"], shuffle=True, seed=self.cfg["seed"])

    def val_loader(self) -> DataLoader:
        return to_loader(self.table.subset(self.val_idx), self.preprocessor, 512, shuffle=False)
