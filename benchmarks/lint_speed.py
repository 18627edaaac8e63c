"""Lint time against the parse floor, over a large body of real Python, in one run.

The corpus defaults to the installed torch package's own sources (thousands of files).
For each round, in alternating order: (a) read + ast.parse every file (the floor);
(b) lint_paths on the same files with jobs=1 (read, parse, index, all rules). Then the
same lint with --jobs N to show scaling on more cores.

    python benchmarks/lint_speed.py [--corpus DIR] [--rounds 3] [--jobs 2] [--limit N]

Target: lint (jobs=1) at most 2.0x the parse floor (a plain interpreter, GC on). The lint
engine turns the cyclic GC off while it runs (trees hold no cycles), so the ratio against a
GC-off floor is printed too, for an honest reading. Exit status 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from pathlib import Path

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import collect_files, lint_paths


def default_corpus() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        sys.exit("torch is not installed; pass --corpus DIR (pip install -e '.[dev]' installs it)")
    return Path(spec.origin).parent


def parse_floor(files: list[Path], collect: bool = True) -> float:
    """Read + ast.parse of every file; `collect=False` runs with the cyclic GC off, as lint does."""
    import gc

    if not collect:
        gc.disable()
    start = time.perf_counter()
    for path in files:
        try:
            ast.parse(path.read_bytes().decode("utf-8-sig"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            pass
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed


def lint_time(files: list[Path], jobs: int) -> tuple[float, int]:
    start = time.perf_counter()
    result = lint_paths(files, LintSettings(), jobs=jobs)
    return time.perf_counter() - start, len(result.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N files")
    args = parser.parse_args()
    corpus = args.corpus or default_corpus()
    files, _ = collect_files([corpus], LintSettings())
    if args.limit:
        files = files[: args.limit]
    size = sum(p.stat().st_size for p in files) / 1e6
    print(f"corpus: {corpus} ({len(files)} files, {size:.1f} MB)")
    floors, lints = [], []
    findings = 0
    for round_ in range(args.rounds):
        if round_ % 2 == 0:
            floors.append(parse_floor(files))
            elapsed, findings = lint_time(files, 1)
            lints.append(elapsed)
        else:
            elapsed, findings = lint_time(files, 1)
            lints.append(elapsed)
            floors.append(parse_floor(files))
    floor, lint = statistics.median(floors), statistics.median(lints)
    floor_no_gc = statistics.median(parse_floor(files, collect=False) for _ in range(args.rounds))
    parallel, _ = lint_time(files, args.jobs)
    ratio = lint / floor
    print(f"parse floor (read + ast.parse), median of {args.rounds}: {floor:7.2f} s")
    print(f"parse floor with the cyclic GC off (as lint runs):  {floor_no_gc:7.2f} s")
    print(f"lint, jobs=1, median of {args.rounds}:                 {lint:7.2f} s   ratio {ratio:.2f} (target <= 2.0); "
          f"{lint / floor_no_gc:.2f} against the GC-off floor")
    print(f"lint, jobs={args.jobs}:                                  {parallel:7.2f} s   speed-up {lint / parallel:.2f}x")
    print(f"findings in the corpus: {findings}")
    return 0 if ratio <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
