"""Whole-process lint time against a whole-process bare parse of the same files, start-up included.

The issue-17 target set: the installed torch package's `nn`, `optim`, `utils/data` and
`distributed/fsdp` folders. Each round runs, in alternating order, (a) a fresh interpreter that
reads and `ast.parse`s every .py file of those folders, and (b) `mldebug-mcp lint --jobs 1` on
the same folders (every rule, the cross-file pass, the text report). The ratio of the medians is
what the dataflow and the rules cost over parsing alone, process start-up included on both sides.
The linter's bytecode is compiled first, as pip does when it installs the wheel.

    python benchmarks/lint_process_speed.py [--rounds 5] [--dirs nn optim utils/data distributed/fsdp]

Target: at most 2.0x. Exit status 1 when it is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET = 2.0
DIRS = ("nn", "optim", "utils/data", "distributed/fsdp")
PARSE_ALL = (
    "import ast, pathlib, sys\n"
    "for folder in sys.argv[1:]:\n"
    "    for path in sorted(pathlib.Path(folder).rglob('*.py')):\n"
    "        ast.parse(path.read_bytes().decode('utf-8-sig'), filename=str(path))\n"
)


def torch_root() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        sys.exit("torch is not installed (pip install -e '.[dev]' installs it)")
    return Path(spec.origin).parent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one process."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: lint found something, which is fine here
        sys.exit(f"{' '.join(command[:3])} ... failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed, _children_cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dirs", nargs="+", default=list(DIRS), help="folders of the torch package")
    args = parser.parse_args()
    import compileall

    import mldebug_mcp

    # Compiled first, as pip does at install: under PYTHONDONTWRITEBYTECODE=1 an editable install would
    # otherwise recompile every module of the linter on every run.
    compileall.compile_dir(Path(mldebug_mcp.__file__).parent, quiet=1)
    folders = [str(torch_root() / d) for d in args.dirs]
    files = sum(1 for f in folders for _ in Path(f).rglob("*.py"))
    megabytes = sum(p.stat().st_size for f in folders for p in Path(f).rglob("*.py")) / 2**20
    parse = [sys.executable, "-c", PARSE_ALL, *folders]
    lint = [sys.executable, "-m", "mldebug_mcp", "lint", "--jobs", "1", *folders]
    floor, linted, floor_cpu, linted_cpu = [], [], [], []
    for round_ in range(args.rounds):
        pair = ((parse, floor, floor_cpu), (lint, linted, linted_cpu))
        for command, times, cpu_times in (pair if round_ % 2 == 0 else pair[::-1]):
            elapsed, cpu = timed(command)
            times.append(elapsed)
            cpu_times.append(cpu)
    ratio = statistics.median(linted) / statistics.median(floor)
    cpu_ratio = statistics.median(linted_cpu) / statistics.median(floor_cpu)
    print(f"{files} files, {megabytes:.1f} MB: {', '.join(args.dirs)} of torch; median of {args.rounds} rounds")
    print(f"  bare parse, whole process   {statistics.median(floor):6.2f} s")
    print(f"  mldebug-mcp lint --jobs 1   {statistics.median(linted):6.2f} s   {ratio:.2f}x  (target <= {TARGET}x)")
    # CPU time is steadier than wall-clock time on a machine other work shares
    print(f"  CPU time (user + system)    {statistics.median(floor_cpu):6.2f} s and {statistics.median(linted_cpu):.2f} s: "
          f"{cpu_ratio:.2f}x")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
