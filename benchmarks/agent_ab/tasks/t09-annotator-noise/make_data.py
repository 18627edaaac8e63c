"""Writes project/data/inspections.csv for t09 (not part of the project the agent sees).

Each row: 16 surface-scan features of one part, the defect class an inspector gave it, and the
inspector's id. Inspectors 0 and 1 label almost perfectly (1 % slips); inspector 2 (about a
third of the rows) assigns a random class to 55 % of the parts. The features separate the five
classes almost perfectly (Bayes accuracy ~99 %), so the accuracy ceiling is set by the labels.

    python make_data.py project/data/inspections.csv
"""
import csv
import sys

import numpy as np

CLASSES = ["ok", "scratch", "dent", "crack", "stain"]
N_FEATURES = 16


def simulate(n: int, seed: int):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.0, (len(CLASSES), N_FEATURES))
    mix = rng.normal(0, 1.0, (N_FEATURES, N_FEATURES)) / N_FEATURES ** 0.5
    y_true = rng.integers(0, len(CLASSES), n)
    x = centers[y_true] + 0.45 * rng.normal(0, 1, (n, N_FEATURES))
    x = x @ mix + np.tanh(x) * 0.5
    inspector = rng.choice(3, size=n, p=[0.36, 0.32, 0.32])
    slip = np.where(inspector == 2, 0.55, 0.01)
    noisy = rng.random(n) < slip
    y = np.where(noisy, rng.integers(0, len(CLASSES), n), y_true)
    return x, y, y_true, inspector


if __name__ == "__main__":
    x, y, y_true, inspector = simulate(3000, seed=5)
    with open(sys.argv[1], "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["part_id"] + [f"scan_{i:02d}" for i in range(N_FEATURES)] + ["defect", "inspector"])
        for i in range(len(y)):
            w.writerow([f"P{100000 + i}"] + [f"{v:.3f}" for v in x[i]] + [CLASSES[y[i]], f"insp-{inspector[i]:02d}"])
    print("label noise overall:", float((y != y_true).mean()),
          "per inspector:", [float((y != y_true)[inspector == k].mean()) for k in range(3)])
