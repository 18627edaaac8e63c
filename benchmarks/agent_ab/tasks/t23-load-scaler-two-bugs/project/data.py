"""Hourly building load: calendar and weather features, target load in kWh.

The table is synthetic but shaped like the real export: a daily and weekly profile, a
cooling load above ~18 C, holidays at weekend level, and multiplicative noise.
Train and validation are consecutive blocks of days (validation after training).
"""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from scaling import FeatureScaler, TargetScaler


def make_frame(cfg: Dict) -> Dict[str, np.ndarray]:
    d = cfg["data"]
    rng = np.random.default_rng(d["data_seed"])
    days = d["days_train"] + d["days_val"]
    hours = np.arange(days * 24)
    hod, day = hours % 24, hours // 24
    dow = day % 7
    holiday = np.isin(day, rng.choice(days, size=max(days // 30, 1), replace=False)).astype(np.float64)
    season = 8.0 * np.sin(2 * np.pi * (day - 100) / 365.0)
    temp = 17.0 + season + 6.0 * np.sin(2 * np.pi * (hod - 9) / 24.0) + rng.normal(0, 2.0, size=hours.size)
    humidity = np.clip(60 - 1.2 * (temp - 17) + rng.normal(0, 8, size=hours.size), 15, 100)
    workday = ((dow < 5) & (holiday == 0)).astype(np.float64)
    occupancy = workday * np.exp(-0.5 * ((hod - 13.0) / 3.5) ** 2)
    base = 180.0 + 420.0 * occupancy + 60.0 * (1 - workday) * np.exp(-0.5 * ((hod - 12.0) / 5.0) ** 2)
    cooling = 14.0 * np.maximum(temp - 18.0, 0.0) * (0.5 + occupancy) + 0.6 * np.maximum(humidity - 60, 0)
    load = (base + cooling) * np.exp(rng.normal(0, 0.05, size=hours.size))
    return {
        "hour_sin": np.sin(2 * np.pi * hod / 24), "hour_cos": np.cos(2 * np.pi * hod / 24),
        "dow_sin": np.sin(2 * np.pi * dow / 7), "dow_cos": np.cos(2 * np.pi * dow / 7),
        "temp_c": temp, "humidity": humidity, "holiday": holiday, "load_kwh": load, "day": day,
    }


def split(cfg: Dict, frame: Dict[str, np.ndarray]) -> Tuple[Dict, Dict]:
    cut = frame["day"] < cfg["data"]["days_train"]
    return ({k: v[cut] for k, v in frame.items()}, {k: v[~cut] for k, v in frame.items()})


def build_data(cfg: Dict):
    """Loaders yield (x, z, y_kwh): standardised features, transformed target, raw load."""
    d = cfg["data"]
    train, val = split(cfg, make_frame(cfg))
    xs = FeatureScaler().fit(np.stack([train[f] for f in d["features"]], axis=1))
    ys = TargetScaler(d["target_transform"]).fit(train[d["target"]])

    def dataset(part):
        x = xs.transform(np.stack([part[f] for f in d["features"]], axis=1))
        y = part[d["target"]]
        return TensorDataset(torch.tensor(x, dtype=torch.float32),
                             torch.tensor(ys.transform(y), dtype=torch.float32),
                             torch.tensor(y, dtype=torch.float32))

    train_dl = DataLoader(dataset(train), batch_size=d["batch_size"], shuffle=True)
    val_dl = DataLoader(dataset(val), batch_size=1024, shuffle=False)
    return train_dl, val_dl, xs, ys
