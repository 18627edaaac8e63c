"""Whole-process lint time against a whole-process bare parse of the same files, start-up included.

The issue-17 target set: the installed torch package's `nn`, `optim`, `utils/data` and
`distributed/fsdp` folders. Each round runs, in alternating order, (a) a fresh interpreter that
reads and `ast.parse`s every .py file of those folders, (b) `mldebug-mcp lint --jobs 1 --no-cache` on
the same folders (every rule, the cross-file pass, the text report), and (c) the same lint run with its
result cache primed (lint/result_cache.py: every file read, none parsed or checked again: an agent's lint
after an edit, when most files have not changed). The ratio of (b) to (a), the medians, is what the dataflow
and the rules cost over parsing alone, process start-up included on both sides, and is what the target is
about; (c) is reported beside it. The linter's bytecode is compiled first, as pip does when it installs the wheel.

    python benchmarks/lint_process_speed.py [--rounds 5] [--dirs nn optim utils/data distributed/fsdp] [--phases]

Target: at most 2.0x. Exit status 1 when it is missed. `--phases` adds where the lint's own CPU time goes, in one
interpreter (start-up excluded): reading, parsing, the index, the project facts (helpers/kinds and the other
families of lint/project_facts.py), the rules.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
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


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one process."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
                          env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: lint found something, which is fine here
        sys.exit(f"{' '.join(command[:3])} ... failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed, _children_cpu() - cpu


def phases(folders: list[str], rounds: int = 3) -> dict[str, float]:
    """CPU seconds per phase of lint_paths over `folders` in this interpreter, the median of `rounds` runs after a
    warm one. A file read again because another file asked what it may tell counts whole under 'files read again',
    and its reading, parse, index and facts under those phases as well."""
    from collections import Counter

    from mldebug_mcp.lint import engine, project_facts
    from mldebug_mcp.lint.config import LintSettings

    spent: Counter = Counter()

    def charged(owner, name: str, phase: str) -> None:  # not the module's timed(): CPU time per phase
        function = getattr(owner, name)

        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[phase] += time.process_time() - start

        setattr(owner, name, wrapper)

    charged(engine, "read_source", "read")
    charged(engine, "parse_source", "parse + index")
    charged(engine, "build_context", "index")
    charged(project_facts.LocalFacts, "__init__", "facts")  # the families computed for every file
    charged(engine, "_all_told", "files read again")  # for the facts another file asked about
    charged(engine, "check_module", "rules")  # with the facts computed only when asked
    paths = [Path(f) for f in folders]
    engine.lint_paths(paths, LintSettings(), jobs=1)
    runs: list[Counter] = []
    for _ in range(rounds):
        spent.clear()
        start = time.process_time()
        engine.lint_paths(paths, LintSettings(), jobs=1)
        spent["total"] = time.process_time() - start
        runs.append(Counter(spent))
    median = {phase: statistics.median(run[phase] for run in runs) for phase in runs[0]}
    return {"read": median["read"], "parse": median["parse + index"] - median["index"], "index": median["index"],
            "facts": median["facts"], "rules (with the facts asked)": median["rules"],
            "files read again": median.get("files read again", 0.0), "total": median["total"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dirs", nargs="+", default=list(DIRS), help="folders of the torch package")
    parser.add_argument("--phases", action="store_true", help="also the CPU time of each phase, in this interpreter")
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
    with tempfile.TemporaryDirectory() as folder:
        kept = {**os.environ, "MLDEBUG_CACHE_DIR": folder}
        timed(lint, kept)  # primes the cache
        runs = {"parse": (parse, None), "cold": ([*lint, "--no-cache"], None), "kept": (lint, kept)}
        wall: dict[str, list[float]] = {name: [] for name in runs}
        cpu: dict[str, list[float]] = {name: [] for name in runs}
        for round_ in range(args.rounds):
            order = list(runs) if round_ % 2 == 0 else list(runs)[::-1]
            for name in order:
                elapsed, spent = timed(*runs[name])
                wall[name].append(elapsed)
                cpu[name].append(spent)
    median = {name: statistics.median(times) for name, times in wall.items()}
    median_cpu = {name: statistics.median(times) for name, times in cpu.items()}
    ratio = median["cold"] / median["parse"]
    print(f"{files} files, {megabytes:.1f} MB: {', '.join(args.dirs)} of torch; median of {args.rounds} rounds")
    print(f"  bare parse, whole process              {median['parse']:6.2f} s")
    print(f"  mldebug-mcp lint --jobs 1 --no-cache   {median['cold']:6.2f} s   {ratio:.2f}x  (target <= {TARGET}x)")
    print(f"  the same, outcomes kept from a run     {median['kept']:6.2f} s   "
          f"{median['kept'] / median['parse']:.2f}x  (no file changed since)")
    # CPU time is steadier than wall-clock time on a machine other work shares
    print(f"  CPU time (user + system)               {median_cpu['parse']:6.2f} s, {median_cpu['cold']:.2f} s "
          f"and {median_cpu['kept']:.2f} s: {median_cpu['cold'] / median_cpu['parse']:.2f}x and "
          f"{median_cpu['kept'] / median_cpu['parse']:.2f}x")
    if args.phases:
        spent = phases(folders)
        print("  in one interpreter, CPU s: " + ", ".join(f"{phase} {seconds:.3f}" for phase, seconds in spent.items()))
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
