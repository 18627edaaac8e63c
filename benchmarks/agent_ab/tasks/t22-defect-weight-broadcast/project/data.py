"""Inspection records: a small column table (like a data frame) and the loaders.

The synthetic line-scan features are generated per class; `crack` sits between `scratch`
and `ok` in feature space and is rare (5% of parts), so it is the class that needs weight.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from weighting import sample_weights


class Table:
    """Column store: ``table["name"]`` is a 1-D column, ``table.select([...])`` a 2-D block."""

    def __init__(self, columns: Dict[str, np.ndarray]):
        lengths = {len(v) for v in columns.values()}
        if len(lengths) != 1:
            raise ValueError(f"columns of unequal length: {lengths}")
        self.columns = dict(columns)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @property
    def names(self) -> List[str]:
        return list(self.columns)

    def select(self, names: Sequence[str]) -> np.ndarray:
        return np.stack([self.columns[n] for n in names], axis=1)

    def take(self, idx: np.ndarray) -> "Table":
        return Table({k: v[idx] for k, v in self.columns.items()})

    def value_counts(self, name: str) -> Dict[int, int]:
        vals, counts = np.unique(self.columns[name], return_counts=True)
        return {int(v): int(c) for v, c in zip(vals, counts)}


def feature_names(cfg: Dict) -> List[str]:
    return [f"scan_{i:02d}" for i in range(cfg["data"]["num_features"])]


def make_table(cfg: Dict, n: int, seed: int) -> Table:
    d = cfg["data"]
    rng = np.random.default_rng(seed)
    proto_rng = np.random.default_rng(d["data_seed"])          # class prototypes: same for every split
    f = d["num_features"]
    base = proto_rng.normal(0.0, 1.0, size=(len(d["class_names"]), f))
    base[3] = 0.55 * base[1] + 0.45 * base[0] + 0.35 * proto_rng.normal(0.0, 1.0, size=f)   # crack
    y = rng.choice(len(d["class_names"]), size=n, p=d["class_freq"])
    x = base[y] * 1.1 + rng.normal(0.0, 1.0, size=(n, f))
    cols = {name: x[:, i].astype(np.float32) for i, name in enumerate(feature_names(cfg))}
    cols["part_id"] = np.arange(n) + seed * 1_000_000
    cols[d["target"]] = y.astype(np.int64)
    return Table(cols)


def to_dataset(cfg: Dict, table: Table, with_weights: bool) -> TensorDataset:
    x = torch.as_tensor(table.select(feature_names(cfg)), dtype=torch.float32)
    targets = table.select([cfg["data"]["target"]])
    y = torch.as_tensor(targets, dtype=torch.long).view(-1)
    if not with_weights:
        return TensorDataset(x, y)
    w = torch.as_tensor(sample_weights(targets, cfg), dtype=torch.float32)
    return TensorDataset(x, y, w)


def build_loaders(cfg: Dict) -> Tuple[DataLoader, DataLoader]:
    d = cfg["data"]
    train = make_table(cfg, d["train_size"], seed=d["data_seed"] * 10 + 1)
    val = make_table(cfg, d["val_size"], seed=d["data_seed"] * 10 + 2)
    train_dl = DataLoader(to_dataset(cfg, train, with_weights=True), batch_size=d["batch_size"], shuffle=True)
    val_dl = DataLoader(to_dataset(cfg, val, with_weights=False), batch_size=512, shuffle=False)
    return train_dl, val_dl
