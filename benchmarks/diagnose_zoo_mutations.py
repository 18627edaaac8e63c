"""Mutation benchmark over the diagnose zoo: one-line bugs in real model code, and the check meant to catch each.

Every mutation in benchmarks/diagnose_zoo/mutations.py is planted in its zoo setup and the full
suite runs on it (with the optimizer the setup's authors use), for each seed. The clean twin
(same setup, same seed) runs too, so a check that fires on the healthy setup anyway is not
credited with the catch:

- caught: the intended check says warn or fail on the mutant, and is quieter on the clean
  twin (pass or skipped there, or warn where the mutant fails);
- fired: the intended check says warn or fail on the mutant, whatever the twin says.

    python benchmarks/diagnose_zoo_mutations.py [--only SETUP[,SETUP]] [--mutation NAME] [--seeds 2] [--json FILE]

Targets (exit status 1 when missed): at least 150 mutated runs over at least 10 setups, and at
least 90% of them caught by the check meant to catch them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.diagnose_zoo import load_spec
from benchmarks.diagnose_zoo.mutations import MUTATIONS, mutated_source
from mldebug_mcp.diagnostics.checks import CHECK_IDS, run_checks

TARGET_CAUGHT, TARGET_RUNS, TARGET_SETUPS = 0.90, 150, 10
FIRED = ("warn", "fail")
SEVERITY = {"skipped": 0, "pass": 1, "warn": 2, "fail": 3, "error": 4}


def suite(name: str, seed: int, source: str | None = None) -> tuple[dict, float]:
    """{check: (status, summary)} of one full run, and its seconds; a run that raises is an error of every check."""
    started = time.perf_counter()
    try:
        report = run_checks(load_spec(name, seed, True, source=source), seed=seed)
        verdicts = {c["id"]: (c["status"], c["summary"]) for c in report["checks"]}
    except Exception as exc:  # noqa: BLE001 - a run that raises is reported, not fatal
        verdicts = {c: ("error", f"the run raised {type(exc).__name__}: {exc}") for c in CHECK_IDS}
    return verdicts, time.perf_counter() - started


def run(mutations: list, seeds: list[int], progress: bool = True) -> dict:
    import torch

    torch.set_num_threads(1)
    clean: dict[tuple[str, int], dict] = {}
    rows = []
    for m in mutations:
        source = mutated_source(m)
        for seed in seeds:
            if (m.setup, seed) not in clean:
                clean[(m.setup, seed)] = suite(m.setup, seed)[0]
            verdicts, seconds = suite(m.setup, seed, source)
            status, summary = verdicts.get(m.check, ("missing", "the check did not run"))
            twin_status, twin_summary = clean[(m.setup, seed)].get(m.check, ("missing", ""))
            fired = status in FIRED
            caught = fired and SEVERITY.get(status, 0) > SEVERITY.get(twin_status, 0)
            rows.append({"name": m.name, "setup": m.setup, "seed": seed, "check": m.check, "status": status,
                         "summary": summary, "clean_status": twin_status, "clean_summary": twin_summary,
                         "fired": fired, "caught": caught, "seconds": seconds,
                         "also_fired": sorted(c for c, (st, _) in verdicts.items() if st in FIRED and c != m.check),
                         "errors": sorted(c for c, (st, _) in verdicts.items() if st == "error")})
            if progress:
                mark = "caught" if caught else ("fired, twin too" if fired else "MISSED")
                print(f"  {m.name:36} seed {seed}  {m.check:18} {status:7} {mark}", file=sys.stderr, flush=True)
    per_check = {}
    for check in CHECK_IDS:
        mine = [r for r in rows if r["check"] == check]
        if mine:
            per_check[check] = {"runs": len(mine), "caught": sum(r["caught"] for r in mine),
                                "fired": sum(r["fired"] for r in mine)}
    caught = sum(r["caught"] for r in rows)
    setups = sorted({r["setup"] for r in rows})
    return {"mutations": rows, "runs": len(rows), "caught": caught, "fired": sum(r["fired"] for r in rows),
            "caught_rate": caught / max(1, len(rows)), "per_check": per_check, "setups": setups,
            "clean": {f"{k[0]} seed {k[1]}": {c: v[0] for c, v in verdicts.items()} for k, verdicts in clean.items()},
            "mean_mutant_suite_s": statistics.mean(r["seconds"] for r in rows) if rows else None,
            "targets": {"runs": len(rows) >= TARGET_RUNS, "setups": len(setups) >= TARGET_SETUPS,
                        "caught": caught / max(1, len(rows)) >= TARGET_CAUGHT},
            "torch": torch.__version__, "checks_source": checks_source()}


def checks_source() -> str:
    """The commit the checks come from, and whether the working tree changes them (runs are snapshots)."""
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    dirty = git("status", "--porcelain", "--", "src/mldebug_mcp/diagnostics")
    return (git("rev-parse", "--short", "HEAD") or "unknown") + (" with uncommitted check changes" if dirty else "")


def print_report(result: dict) -> None:
    print(f"checks from {result['checks_source']}, torch {result['torch']}")
    print(f"{'mutation':36} {'setup':30} {'seed':>4} {'intended check':18} {'mutant':7} {'clean':7} result")
    for r in result["mutations"]:
        mark = "caught" if r["caught"] else ("fired on the twin too" if r["fired"] else "MISSED")
        print(f"{r['name']:36} {r['setup']:30} {r['seed']:4} {r['check']:18} {r['status']:7} {r['clean_status']:7} {mark}")
        if not r["caught"]:
            print(f"{'':36}   mutant: {r['summary']}")
            if r["fired"]:
                print(f"{'':36}   clean twin: {r['clean_summary']}")
        if r["errors"]:
            print(f"{'':36}   error verdicts on the mutant: {', '.join(r['errors'])}")
    print("\nper check (caught / mutated runs meant for it; fired counts the twin-blind rate):")
    for check, c in result["per_check"].items():
        print(f"  {check:20} {c['caught']:3}/{c['runs']:<3} caught ({c['caught'] / c['runs']:.0%}), "
              f"fired {c['fired']}/{c['runs']}")
    n = result["runs"]
    print(f"\n{n} mutated runs of {len({r['name'] for r in result['mutations']})} mutations over "
          f"{len(result['setups'])} setups (targets >= {TARGET_RUNS} runs, >= {TARGET_SETUPS} setups)")
    print(f"caught by the intended check: {result['caught']}/{n} = {result['caught_rate']:.0%} "
          f"(target >= {TARGET_CAUGHT:.0%}); fired regardless of the twin: {result['fired']}/{n}")
    if result["mean_mutant_suite_s"] is not None:
        print(f"mean suite time on a mutant: {result['mean_mutant_suite_s']:.2f} s")
    missed = [k for k, ok in result["targets"].items() if not ok]
    print("targets met" if not missed else f"TARGETS MISSED: {', '.join(missed)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="zoo setup name(s), comma-separated or repeated")
    parser.add_argument("--mutation", action="append", help="mutation name(s), comma-separated or repeated")
    parser.add_argument("--seeds", default="2", help="a count (2: seeds 0, 1) or a comma-separated list")
    parser.add_argument("--json", type=Path, help="also write the full result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no per-run progress lines on stderr")
    args = parser.parse_args(argv)
    setups = {n for chunk in (args.only or []) for n in chunk.split(",") if n}
    names = {n for chunk in (args.mutation or []) for n in chunk.split(",") if n}
    chosen = [m for m in MUTATIONS if (not setups or m.setup in setups) and (not names or m.name in names)]
    if not chosen:
        parser.error("no mutation matches --only/--mutation")
    seeds = [int(s) for s in args.seeds.split(",")] if "," in args.seeds else list(range(int(args.seeds)))
    result = run(chosen, seeds, progress=not args.quiet)
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if all(result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
