"""Writes the two synthetic sweeps of this folder (run: python examples/sweep/make_sweep.py).

warmup.csv      Does LR warmup change final val accuracy? warmup_steps in {0, 500, 2000}, seeds 11..55,
                laid out like a W&B runs export (Name, State, settings, summary metrics). The truth:
                500 adds +0.6 points, 2000 adds nothing; seed-to-seed spread is about 2 points, so
                only the paired view sees the 0.6. Run warmup=2000 seed=55 crashed (no metric).
twenty_arms.csv The multiple-comparison trap: 20 augmentation variants and a baseline, 4 seeds, and
                no variant does anything. One of them still reaches p < 0.05 alone.

Each value is base + the seed's own luck (shared by every arm of that seed) + the arm's true effect
+ run noise: the structure that makes pairing on seeds worth it.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def warmup(rng: random.Random) -> list[dict[str, object]]:
    seeds = [11, 22, 33, 44, 55]
    luck = {seed: rng.gauss(0.0, 2.0) for seed in seeds}
    rows = []
    for seed in seeds:
        for steps, effect in ((0, 0.0), (500, 0.6), (2000, 0.0)):
            acc = 71.0 + luck[seed] + effect + rng.gauss(0.0, 0.25)
            loss = 0.9 - 0.01 * (acc - 71.0) + rng.gauss(0.0, 0.01)
            crashed = steps == 2000 and seed == 55
            rows.append({"Name": f"warmup-{steps}-s{seed}", "State": "crashed" if crashed else "finished",
                         "warmup_steps": steps, "lr": 0.001, "seed": seed,
                         "val_acc": "" if crashed else round(acc, 2), "train_loss": round(loss, 4)})
    return rows


def twenty_arms(rng: random.Random) -> list[dict[str, object]]:
    seeds = [1, 2, 3, 4]
    luck = {seed: rng.gauss(0.0, 1.5) for seed in seeds}
    arms = ["baseline"] + [f"aug{i:02d}" for i in range(20)]
    return [{"arm": arm, "seed": seed, "val_acc": round(80.0 + luck[seed] + rng.gauss(0.0, 0.5), 2)}
            for seed in seeds for arm in arms]


def write(path: Path, rows: list[dict[str, object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    write(HERE / "warmup.csv", warmup(random.Random(2026)))
    write(HERE / "twenty_arms.csv", twenty_arms(random.Random(13)))
