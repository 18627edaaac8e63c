"""Generates the solar-plant logger export used by t08 (not part of the project the agent sees).

    python make_data.py project/data      # plant_logs.csv (raw export, seed 3) + holdout.csv (checked, seed 4)

accept.py imports simulate()/write_csv() to write a fresh export and a clean held-out set.
The logger convention reproduced here: a probe read that fails is written as -9999
(MISSING); a record with a dropped field is written with an empty field.
"""
from __future__ import annotations

import csv
import math
import sys

import numpy as np

COLUMNS = ["timestamp", "air_temp", "humidity", "pressure", "wind_speed", "irradiance",
           "panel_temp", "cloud_cover", "power_kw"]
MISSING = -9999.0


def simulate(n_hours: int, seed: int, fault_rate: float = 0.004, blank_rate: float = 0.003):
    rng = np.random.default_rng(seed)
    t = np.arange(n_hours)
    hour = t % 24
    day = t // 24
    season = np.sin(2 * math.pi * day / 365.0)
    sun = np.clip(np.sin(math.pi * (hour - 6) / 12.0), 0, None)
    cloud = np.clip(rng.beta(1.2, 2.5, n_hours), 0, 1)
    irradiance = 1000 * sun * (0.75 + 0.25 * season) * (1 - 0.8 * cloud) + rng.normal(0, 15, n_hours)
    irradiance = np.clip(irradiance, 0, None)
    air_temp = 12 + 10 * season + 6 * sun + rng.normal(0, 2, n_hours)
    humidity = np.clip(70 - 25 * sun + 15 * cloud + rng.normal(0, 5, n_hours), 5, 100)
    pressure = 1013 + rng.normal(0, 6, n_hours)
    wind = np.abs(rng.normal(3, 1.8, n_hours))
    panel_temp = air_temp + 0.03 * irradiance - 0.8 * wind + rng.normal(0, 1, n_hours)
    eff = 1 - 0.004 * (panel_temp - 25)
    power = 5.0 * (irradiance / 1000) * eff + rng.normal(0, 0.05, n_hours)
    power = np.clip(power, 0, None)
    data = np.stack([t.astype(float), air_temp, humidity, pressure, wind, irradiance, panel_temp,
                     cloud, power], axis=1)
    clean = data.copy()
    faults = rng.random(data[:, 1:].shape) < fault_rate
    data[:, 1:][faults] = MISSING
    blanks = rng.random(data[:, 1:].shape) < blank_rate
    return data, blanks, clean


def write_csv(path: str, data: np.ndarray, blanks: np.ndarray) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for row, blank in zip(data, blanks):
            cells = [str(int(row[0]))]
            for v, b in zip(row[1:], blank):
                cells.append("" if b else ("-9999" if v == MISSING else f"{v:.3f}"))
            w.writerow(cells)


if __name__ == "__main__":
    out = sys.argv[1]
    data, blanks, _ = simulate(8760, seed=3)
    write_csv(f"{out}/plant_logs.csv", data, blanks)
    _, _, clean = simulate(24 * 90, seed=4)
    write_csv(f"{out}/holdout.csv", clean, np.zeros_like(clean[:, 1:], dtype=bool))
