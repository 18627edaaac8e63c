"""What `mldebug-mcp sweep` costs beside reading the same runs table, whole processes, side by side.

For each size (arms x seeds), a synthetic runs table is written once; each round then runs, in alternating
order, (a) a fresh interpreter that reads the CSV with the csv module (the floor any tool pays) and (b)
`mldebug-mcp sweep FILE --json`. The ratio of the medians is what the statistics (paired t, Holm, the
bootstrap) cost on top of reading, start-up included on both sides.

    python benchmarks/sweep_cost.py [--rounds 5]

No target is set by the issue for this tool; the figure is reported so that a slow change shows.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import cli  # noqa: E402 - the installed console script, as a user runs it

SIZES = ((3, 5), (21, 4), (50, 20), (200, 50))
READ = "import csv, sys\nrows = list(csv.reader(open(sys.argv[1], newline='')))\n"


def write_table(path: Path, arms: int, seeds: int) -> None:
    rng = random.Random(0)
    luck = [rng.gauss(0, 2) for _ in range(seeds)]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["arm", "seed", "val_acc"])
        for arm in range(arms):
            effect = 0.5 if arm == 1 else 0.0
            for seed in range(seeds):
                writer.writerow([f"arm{arm:03d}" if arm else "baseline", seed, 70 + effect + luck[seed] + rng.gauss(0, 0.3)])


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"sweep cost, median of {args.rounds} rounds (whole processes):")
        for arms, seeds in SIZES:
            table = Path(tmp) / f"sweep_{arms}x{seeds}.csv"
            write_table(table, arms, seeds)
            read, sweep = [], []
            for round_ in range(args.rounds):
                pair = [("read", [sys.executable, "-c", READ, str(table)]),
                        ("sweep", [*cli(), "sweep", str(table), "--json"])]
                for name, command in pair if round_ % 2 == 0 else pair[::-1]:
                    (read if name == "read" else sweep).append(timed(command))
            r, s = statistics.median(read), statistics.median(sweep)
            print(f"  {arms:>4} arms x {seeds:>3} seeds  read {r * 1000:7.1f} ms   sweep {s * 1000:7.1f} ms   {s / r:5.1f}x")


if __name__ == "__main__":
    main()
