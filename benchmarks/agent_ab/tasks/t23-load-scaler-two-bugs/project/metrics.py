"""Regression metrics in kWh."""
from __future__ import annotations

from typing import Dict

import numpy as np


class AverageMeter:
    def __init__(self) -> None:
        self.total, self.count = 0.0, 0

    def update(self, value: float, n: int = 1) -> None:
        self.total += float(value) * n
        self.count += n

    @property
    def avg(self) -> float:
        return self.total / max(self.count, 1)


def regression_report(pred: np.ndarray, true: np.ndarray) -> Dict[str, float]:
    err = pred - true
    mae = float(np.abs(err).mean())
    rmse = float(np.sqrt((err ** 2).mean()))
    mape = float((np.abs(err) / np.maximum(np.abs(true), 1e-6)).mean() * 100)
    ss_res, ss_tot = float((err ** 2).sum()), float(((true - true.mean()) ** 2).sum())
    return {"mae": mae, "rmse": rmse, "mape": mape, "r2": 1.0 - ss_res / max(ss_tot, 1e-12)}


def peak_error(pred: np.ndarray, true: np.ndarray, q: float = 0.9) -> float:
    """MAE on the hours above the q-quantile of the true load (the ones that set the tariff)."""
    mask = true >= np.quantile(true, q)
    return float(np.abs(pred[mask] - true[mask]).mean())
