"""Curve reading and analysis against the number of rows, measured side by side in one run.

Writes CSV logs (step,loss,val_loss; val_loss filled every 100th row; a noisy decaying loss
with a few spikes) of 10k, 100k and 1M rows (10M with --10m) in a temporary folder, then reads
and analyses each (read_curve + analyze_curve) in a fresh child process, which reports its own
time and peak resident memory (getrusage ru_maxrss of the child). The time per row relative to
10k rows shows the growth: a near-constant ratio means O(n) or O(n log n); a growing one, worse.
Sizes under 1M rows run three times and keep the fastest, so that noise does not set the ratio.

    python benchmarks/curve_scale.py [--10m] [--sizes 10000,100000] [--val-every 100]
                                     [--baseline DIR] [--timeout 600]

--baseline DIR measures another source tree too, size by size on the same files (an older
commit: `git archive COMMIT src | tar -x -C /tmp/old`, then --baseline /tmp/old/src); once it
runs past --timeout seconds at one size, larger sizes are not tried with it.
Target: 10M rows read and analysed in under 120 s and 3 GB peak memory (exit status 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = (10_000, 100_000, 1_000_000)
TEN_MILLION = 10_000_000
TARGET_SECONDS, TARGET_MB = 120.0, 3000.0  # for 10M rows, on a laptop-class core
VAL_EVERY = 100

CHILD = """
import json, resource, sys, time
from pathlib import Path
started = time.perf_counter()
from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
imported = time.perf_counter()
log = read_curve(Path(sys.argv[1]))
read = time.perf_counter()
report = analyze_curve(log)
done = time.perf_counter()
print(json.dumps({"read_s": read - imported, "analyse_s": done - read,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "observations": report.observations, "loss_points": report.series[0].points}))
"""


def write_log(path: Path, rows: int, val_every: int = VAL_EVERY, seed: int = 0) -> None:
    """A decaying loss with lognormal noise, three spikes, and a validation loss every `val_every` rows."""
    rng = random.Random(seed)
    spikes = {rows // 4, rows // 2, 3 * rows // 4}
    with path.open("w", encoding="utf-8") as handle:
        handle.write("step,loss,val_loss\n")
        batch = []
        for step in range(rows):
            level = 0.4 + 2.0 * math.exp(-step / (rows / 3))
            loss = level * math.exp(rng.gauss(0.0, 0.08)) * (4.0 if step in spikes else 1.0)
            val = f"{level * 1.1:.6g}" if step % val_every == 0 else ""
            batch.append(f"{step},{loss:.6g},{val}\n")
            if len(batch) == 100_000:
                handle.writelines(batch)
                batch.clear()
        handle.writelines(batch)


def measure(path: Path, src: Path, timeout: float) -> dict | None:
    """Read and analyse `path` in a child process; None when it runs past `timeout`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]))
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], check=False, capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode:
        sys.exit(f"the child failed on {path.name}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def best_of(path: Path, src: Path, timeout: float, rounds: int) -> dict | None:
    results = [measure(path, src, timeout) for _ in range(rounds)]
    if any(result is None for result in results):
        return None
    return min(results, key=lambda r: r["read_s"] + r["analyse_s"])


def row(label: str, rows: int, size_mb: float, result: dict | None, first_per_row: float | None,
        timeout: float) -> float | None:
    """Print one line; return the microseconds per row."""
    if result is None:
        print(f"{label:>9} {rows:>11,} {size_mb:>8.1f}   timed out after {timeout:.0f} s")
        return None
    total = result["read_s"] + result["analyse_s"]
    per_row = total / rows * 1e6
    ratio = per_row / (first_per_row or per_row)
    print(f"{label:>9} {rows:>11,} {size_mb:>8.1f} {result['read_s']:>8.2f} {result['analyse_s']:>10.2f} "
          f"{total:>8.2f} {result['peak_mb']:>8.0f} {per_row:>7.2f} {ratio:>6.2f}  "
          f"{', '.join(result['observations']) or '-'}")
    return per_row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--10m", dest="ten_million", action="store_true", help="add 10,000,000 rows (~1-2 min)")
    parser.add_argument("--sizes", help="comma-separated row counts instead of the defaults")
    parser.add_argument("--val-every", type=int, default=VAL_EVERY, help="rows between two validation losses")
    parser.add_argument("--baseline", type=Path, help="another source tree to measure beside this one")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per child before giving up")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(SIZES)
    if args.ten_million:
        sizes.append(TEN_MILLION)
    sources = {"this": ROOT / "src"} | ({"baseline": args.baseline} if args.baseline else {})
    print(f"python {sys.version.split()[0]}; " + "; ".join(f"{k}: {v}" for k, v in sources.items()))
    print(f"{'source':>9} {'rows':>11} {'MB file':>8} {'read s':>8} {'analyse s':>10} {'total s':>8} "
          f"{'peak MB':>8} {'us/row':>7} {'ratio':>6}  observations")
    first: dict[str, float | None] = dict.fromkeys(sources)
    gave_up: set[str] = set()
    missed = False
    with tempfile.TemporaryDirectory(prefix="curve-scale-") as tmp:
        for rows in sizes:
            path = Path(tmp) / f"log_{rows}.csv"
            write_log(path, rows, args.val_every)
            size_mb = path.stat().st_size / 1e6
            for label, src in sources.items():
                if label in gave_up:
                    continue
                result = best_of(path, src, args.timeout, 3 if rows < 1_000_000 else 1)
                per_row = row(label, rows, size_mb, result, first[label], args.timeout)
                first[label] = first[label] or per_row
                if result is None:
                    gave_up.add(label)
                if label == "this" and rows == TEN_MILLION:
                    total = result["read_s"] + result["analyse_s"] if result else math.inf
                    missed |= total > TARGET_SECONDS or (result or {}).get("peak_mb", math.inf) > TARGET_MB
            path.unlink()
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
