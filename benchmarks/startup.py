"""Whole-process start-up of the CLI against a bare interpreter, measured side by side in one run.

Each round runs, in turn: `python -c pass` (the floor), `python -c "import mldebug_mcp.cli"`,
`mldebug-mcp lint FILE` on one bundled example, `mldebug-mcp quote jones`, and `mldebug-mcp lint
--help`. Commands alternate within a round so machine noise hits them alike; medians are
compared. The package's bytecode is compiled first, as pip does when it installs the wheel (an
editable install under PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every module on every run).

    python benchmarks/startup.py [--rounds 21]

Targets (issue 14): lint of one file within 5x `python -c pass`; `quote jones` within 8x.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "double_softmax" / "buggy.py"
TARGETS = {"lint one file": 5.0, "quote jones": 8.0}


def cli() -> list[str]:
    """The installed console script, as a user runs it; else the module."""
    script = Path(sys.executable).parent / "mldebug-mcp"
    found = script if script.is_file() else shutil.which("mldebug-mcp")
    return [str(found)] if found else [sys.executable, "-m", "mldebug_mcp"]


def commands() -> dict[str, list[str]]:
    entry = cli()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import mldebug_mcp.cli": [sys.executable, "-c", "import mldebug_mcp.cli"],
        "lint one file": [*entry, "lint", str(EXAMPLE)],
        "quote jones": [*entry, "quote", "jones"],
        "lint --help": [*entry, "lint", "--help"],
    }


def measure(rounds: int) -> dict[str, list[float]]:
    runs = commands()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for name, argv in runs.items():  # warm the file cache and the .pyc files once
        subprocess.run(argv, capture_output=True)
    for _ in range(rounds):
        for name, argv in runs.items():
            start = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True)
            times[name].append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):
                sys.exit(f"{name} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    import compileall
    import mldebug_mcp

    compileall.compile_dir(Path(mldebug_mcp.__file__).parent, quiet=1)
    times = measure(args.rounds)
    floor = statistics.median(times["python -c pass"])
    missed = []
    print(f"start-up, median of {args.rounds} rounds, whole process:")
    for name, values in times.items():
        median = statistics.median(values)
        ratio = median / floor
        target = TARGETS.get(name)
        note = f"  (target <= {target:g}x)" if target else ""
        if target and ratio > target:
            missed.append(name)
            note += "  MISSED"
        print(f"  {name:<24} {median * 1000:7.1f} ms  {ratio:5.1f}x{note}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
