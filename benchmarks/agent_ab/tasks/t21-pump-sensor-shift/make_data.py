"""Writes the task's data (not shown to the agent):
    python make_data.py project/data
train.csv: Oct 2025 - Feb 2026, lines L1-L3; march_2026.csv: the new export. In March the
vibration sensors of line L2 were replaced; the new units report velocity RMS over a narrower
band, about 0.45x the old readings for the same machine state. Nothing else changes.
"""
import csv
import os
import sys

import numpy as np
from datetime import datetime, timedelta

CLASSES = ["normal", "bearing", "cavitation", "misalignment"]
PRIORS = [0.55, 0.17, 0.14, 0.14]
COLS = ["record_id", "timestamp", "line", "pump_id", "rpm", "temp_c", "current_a", "pressure_bar",
        "flow_m3h", "vib_rms_x", "vib_rms_y", "vib_peak", "fault"]
L2_VIB_GAIN_MARCH = 0.45


def sample(rng, n, month_days, start_id, vib_gain_l2=1.0):
    rows = []
    for i in range(n):
        c = rng.choice(4, p=PRIORS)
        line = rng.choice(["L1", "L2", "L3"])
        pump = f"{line}-P{rng.integers(1, 7):02d}"
        rpm = rng.normal(1480, 25)
        temp = rng.normal(41, 4) + (6 if c == 1 else 0) + rng.normal(0, 1.5)
        current = rng.normal(18, 1.2) + (1.8 if c == 3 else 0) + (0.8 if c == 1 else 0)
        pressure = rng.normal(4.2, 0.35) - (1.1 if c == 2 else 0)
        flow = rng.normal(52, 4) - (7 if c == 2 else 0)
        vx = rng.lognormal(np.log(2.2), 0.25) * (2.2 if c == 1 else 1.0) * (1.9 if c == 3 else 1.0) * (1.3 if c == 2 else 1.0)
        vy = rng.lognormal(np.log(2.0), 0.25) * (2.1 if c == 1 else 1.0) * (1.15 if c == 3 else 1.0) * (1.3 if c == 2 else 1.0)
        peak = (vx + vy) * rng.normal(2.4, 0.2) * (1.5 if c == 1 else 1.0)
        if line == "L2":
            vx, vy, peak = vx * vib_gain_l2, vy * vib_gain_l2, peak * vib_gain_l2
        day, hour = int(rng.integers(0, month_days)), int(rng.integers(0, 24))
        rows.append([start_id + i, (day, hour), line, pump, f"{rpm:.1f}",
                     f"{temp:.2f}", f"{current:.2f}", f"{pressure:.3f}", f"{flow:.2f}", f"{vx:.3f}",
                     f"{vy:.3f}", f"{peak:.3f}", CLASSES[c]])
    return rows


def write(path, rows, start):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLS)
        for r in rows:
            r = list(r)
            r[1] = (start + timedelta(days=r[1][0], hours=r[1][1])).strftime("%Y-%m-%d %H:00")
            w.writerow(r)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20260301)
    write(os.path.join(out, "train.csv"), sample(rng, 5000, 151, 100000), datetime(2025, 10, 1))
    write(os.path.join(out, "march_2026.csv"), sample(rng, 1800, 31, 200000, L2_VIB_GAIN_MARCH), datetime(2026, 3, 1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "project/data")
