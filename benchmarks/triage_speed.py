"""How fast triage answers: the cold CLI call against a bare interpreter, and in-process first and warm calls.

Side by side in one run, alternating so that machine noise hits both alike (medians compared):
  - `python -c pass` (the floor) and `mldebug-mcp triage --symptom TEXT --json`, each a whole process,
    with the index cache in place (a private cache folder, filled once before timing);
  - the same with a description holding words the catalogue lacks (most forum posts do), which loads the
    stemmer (shown, not a target);
  - the same CLI call with no cache at all (MLDEBUG_CACHE_DIR=off): what the cache saves;
  - in a fresh interpreter: the first in-process `services.triage.triage(...)` call, imports included,
    and the median of later (warm) calls.
The package's bytecode is compiled first, as pip does at install.

    python benchmarks/triage_speed.py [--rounds 11]

Targets (issue 19): the cold CLI call within 10x `python -c pass`; the first in-process call under
300 ms; warm calls under 30 ms. Exit status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import cli  # noqa: E402 - the installed console script, as a user runs it

SYMPTOM = "training loss goes to nan after a few hundred steps, I use fp16 with a learning rate of 1e-3"
# 'everyone', 'unfortunately' and 'suggestions' are in no cause or case: their stems need the stemmer.
NEW_WORDS = ("Hi everyone, my segmentation model's validation dice score hovers around 0.4 while the training loss "
             "keeps decreasing nicely. Unfortunately I'm stuck, any suggestions?")
CLI_TARGET, FIRST_MS, WARM_MS = 10.0, 300.0, 30.0
IN_PROCESS = (
    "import json, sys, time\n"
    "start = time.perf_counter()\n"
    "from mldebug_mcp.services.triage import triage\n"
    "triage(sys.argv[1])\n"
    "first = time.perf_counter() - start\n"
    "warm = []\n"
    "for _ in range(15):\n"
    "    t = time.perf_counter(); triage(sys.argv[1]); warm.append(time.perf_counter() - t)\n"
    "print(json.dumps({'first': first, 'warm': sorted(warm)[len(warm) // 2]}))\n"
)


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"{argv[:3]} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    import compileall

    import mldebug_mcp

    compileall.compile_dir(Path(mldebug_mcp.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        cached = {**os.environ, "MLDEBUG_CACHE_DIR": folder}
        uncached = {**os.environ, "MLDEBUG_CACHE_DIR": "off"}
        floor_argv = [sys.executable, "-c", "pass"]
        triage_argv = [*cli(), "triage", "--symptom", SYMPTOM, "--json"]
        timed(triage_argv, cached)  # fills the cache
        new_words_argv = [*cli(), "triage", "--symptom", NEW_WORDS, "--json"]
        runs = {"python -c pass": (floor_argv, cached), "triage (cache)": (triage_argv, cached),
                "triage (cache, new words)": (new_words_argv, cached), "triage (no cache)": (triage_argv, uncached)}
        times: dict[str, list[float]] = {name: [] for name in runs}
        firsts, warms = [], []
        for _ in range(args.rounds):
            for name, (argv, env) in runs.items():
                times[name].append(timed(argv, env))
            out = subprocess.run([sys.executable, "-c", IN_PROCESS, SYMPTOM], capture_output=True, env=cached,
                                 check=True, text=True).stdout
            measured = json.loads(out)
            firsts.append(measured["first"])
            warms.append(measured["warm"])
    floor = statistics.median(times["python -c pass"])
    print(f"triage speed, median of {args.rounds} rounds:")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<26} {median * 1000:7.1f} ms  {median / floor:5.1f}x python -c pass")
    cli_ratio = statistics.median(times["triage (cache)"]) / floor
    first_ms, warm_ms = statistics.median(firsts) * 1000, statistics.median(warms) * 1000
    print(f"  in-process first call {first_ms:7.1f} ms (imports included)   warm call {warm_ms:6.1f} ms")
    missed = [what for what, bad in (("cold CLI call", cli_ratio > CLI_TARGET), ("first call", first_ms > FIRST_MS),
                                     ("warm call", warm_ms > WARM_MS)) if bad]
    print(f"targets: cold CLI <= {CLI_TARGET:g}x, first call < {FIRST_MS:g} ms, warm call < {WARM_MS:g} ms: "
          + (f"MISSED ({', '.join(missed)})" if missed else "met"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
