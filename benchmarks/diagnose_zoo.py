"""The diagnose zoo benchmark: the full check suite on healthy setups it was not written for.

Every setup in benchmarks/diagnose_zoo/ (real model code, small inputs) is run through the
whole diagnose suite in this process, for each seed and both with the optimizer its authors
use and with none given (diagnose's default). A healthy setup should get no FAIL and no
`error`; each WARN is listed with its measured reason. Cost: the suite's time over the time of
200 plain training steps of the same spec (its train_step and optimizer), measured right
before it, on one thread.

    python benchmarks/diagnose_zoo.py [--only NAME[,NAME]] [--seeds 3 | --seeds 0,2]
                                      [--variants both|given|default] [--json FILE]

Targets (exit status 1 when one is missed): zero FAIL and zero error verdicts; at most one
WARN per run on average; on every setup the suite within 3x of 200 plain steps (the median
over seeds, for each optimizer variant).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.diagnose_zoo import SETUPS, load_spec, provenance
from mldebug_mcp.diagnostics.checks import CHECK_IDS, run_checks

TARGET_WARNS_PER_RUN, TARGET_RATIO = 1.0, 3.0
PLAIN_STEPS = 200
DEFAULT_LR = 3e-4  # what diagnose uses when the spec gives no optimizer (Adam)
MARKS = {"pass": ".", "warn": "W", "fail": "F", "error": "E", "skipped": "-"}
SEVERITY = {"skipped": 0, "pass": 1, "warn": 2, "fail": 3, "error": 4}
VARIANTS = {"both": (True, False), "given": (True,), "default": (False,)}


def plain_steps(spec: dict, steps: int = PLAIN_STEPS) -> float:
    """Seconds for `steps` ordinary training steps of the spec, as the user's own loop would run them."""
    import torch

    model = spec["model"]
    model.train()
    make = spec.get("optimizer") or (lambda p: torch.optim.Adam(p, lr=DEFAULT_LR))
    optimizer = make(model.parameters())
    batch, step = spec["batch"], spec.get("train_step")
    started = time.perf_counter()
    for _ in range(steps):
        if step is not None:
            step(model, batch, optimizer)
        else:
            optimizer.zero_grad()
            inputs = batch if isinstance(batch, dict) else batch[0]
            output = model(**inputs) if isinstance(inputs, dict) else model(*inputs) if isinstance(inputs, (tuple, list)) else model(inputs)
            loss = output.loss if spec.get("loss_fn") in (None, "model") else spec["loss_fn"](output, batch[1])
            loss.backward()
            optimizer.step()
    return time.perf_counter() - started


def one_run(name: str, seed: int, given: bool) -> dict:
    """Plain steps, then the suite, on fresh copies of the same spec."""
    row: dict = {"setup": name, "seed": seed, "optimizer": "given" if given else "default"}
    try:
        row["steps200_s"] = plain_steps(load_spec(name, seed, given))
        started = time.perf_counter()
        report = run_checks(load_spec(name, seed, given), seed=seed)
        row["suite_s"] = time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001 - the suite itself (or building the spec) raised: an error of the run
        row.update(suite_s=None, run_error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc(limit=6))
        row["checks"] = {}
        return row
    row["ratio"] = row["suite_s"] / row["steps200_s"]
    row["checks"] = {c["id"]: {"status": c["status"], "summary": c["summary"], "seconds": c.get("seconds", 0.0)}
                     for c in report["checks"]}
    return row


def run(names: list[str], seeds: list[int], variants: tuple[bool, ...], progress: bool = True) -> dict:
    import torch

    torch.set_num_threads(1)  # the setups are tiny; threads only add scheduling noise
    runs = []
    for name in names:
        for given in variants:
            for seed in seeds:
                row = one_run(name, seed, given)
                runs.append(row)
                if progress:
                    marks = "".join(MARKS.get(row["checks"].get(c, {}).get("status"), "?") for c in CHECK_IDS)
                    took = f"{row['ratio']:.2f}x" if row.get("ratio") else row.get("run_error", "")[:60]
                    print(f"  {name:32} {row['optimizer']:7} seed {seed}  {marks}  {took}", file=sys.stderr, flush=True)
    return summarise(runs, names)


def summarise(runs: list[dict], names: list[str]) -> dict:
    import torch

    counts = {status: 0 for status in ("pass", "warn", "fail", "error", "skipped")}
    findings = []  # every warn, fail and error, with its measured reason
    for r in runs:
        if r.get("run_error"):
            counts["error"] += 1
            findings.append({**_where(r), "check": "(run)", "status": "error", "summary": r["run_error"]})
        for check, c in r["checks"].items():
            counts[c["status"]] = counts.get(c["status"], 0) + 1
            if c["status"] in ("warn", "fail", "error"):
                findings.append({**_where(r), "check": check, "status": c["status"], "summary": c["summary"]})
    setups = {}
    for name in names:
        mine = [r for r in runs if r["setup"] == name]
        ratios = {v: statistics.median(r["ratio"] for r in mine if r["optimizer"] == v and r.get("ratio"))
                  for v in ("given", "default") if any(r["optimizer"] == v and r.get("ratio") for r in mine)}
        per_check_s = {c: statistics.mean(r["checks"][c]["seconds"] for r in mine if c in r["checks"])
                       for c in CHECK_IDS if any(c in r["checks"] for r in mine)}
        setups[name] = {
            "provenance": provenance(name), "runs": len(mine),
            "worst": {v: {c: _worst([r["checks"].get(c, {}).get("status") for r in mine if r["optimizer"] == v])
                          for c in CHECK_IDS} for v in ("given", "default") if any(r["optimizer"] == v for r in mine)},
            "warns": sum(f["status"] == "warn" for f in findings if f["setup"] == name),
            "fails": sum(f["status"] == "fail" for f in findings if f["setup"] == name),
            "errors": sum(f["status"] == "error" for f in findings if f["setup"] == name),
            "ratio": ratios, "worst_ratio": max(ratios.values(), default=None),
            "suite_s": statistics.median(r["suite_s"] for r in mine if r.get("suite_s")) if any(r.get("suite_s") for r in mine) else None,
            "steps200_s": statistics.median(r["steps200_s"] for r in mine if r.get("steps200_s")) if any(r.get("steps200_s") for r in mine) else None,
            "check_seconds": per_check_s,
        }
    ratios = [s["worst_ratio"] for s in setups.values() if s["worst_ratio"] is not None]
    warns_per_run = counts["warn"] / max(1, len(runs))
    met = {"no_fail": counts["fail"] == 0, "no_error": counts["error"] == 0,
           "warns_per_run": warns_per_run <= TARGET_WARNS_PER_RUN,
           "speed": bool(ratios) and max(ratios) <= TARGET_RATIO}
    return {"runs": runs, "setups": setups, "findings": findings, "counts": counts, "warns_per_run": warns_per_run,
            "worst_ratio": max(ratios, default=None), "targets": met, "torch": torch.__version__,
            "checks_source": checks_source()}


def _where(r: dict) -> dict:
    return {"setup": r["setup"], "seed": r["seed"], "optimizer": r["optimizer"]}


def _worst(statuses: list) -> str | None:
    known = [s for s in statuses if s is not None]
    return max(known, key=lambda s: SEVERITY.get(s, 5)) if known else None


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
    legend = "  ".join(f"{i + 1}={c}" for i, c in enumerate(CHECK_IDS))
    print(f"checks: {legend}")
    print("verdicts, worst over seeds: . pass  W warn  F fail  E error  - skipped\n")
    head = "".join(f"{i + 1:<3}"[:3] for i in range(len(CHECK_IDS)))
    print(f"{'setup':32} {'optimizer':9} {head} {'W':>3} {'F':>3} {'E':>3} {'suite s':>8} {'200 st s':>8} {'ratio':>6}")
    for name, s in result["setups"].items():
        for variant, worst in s["worst"].items():
            marks = "".join(f"{MARKS.get(worst[c], '?'):3}" for c in CHECK_IDS)
            mine = [f for f in result["findings"] if f["setup"] == name and f["optimizer"] == variant]
            w, f_, e = (sum(x["status"] == st for x in mine) for st in ("warn", "fail", "error"))
            ratio = s["ratio"].get(variant)
            runs = [r for r in result["runs"] if r["setup"] == name and r["optimizer"] == variant and r.get("suite_s")]
            suite = statistics.median(r["suite_s"] for r in runs) if runs else float("nan")
            steps = statistics.median(r["steps200_s"] for r in runs) if runs else float("nan")
            print(f"{name:32} {variant:9} {marks} {w:3} {f_:3} {e:3} {suite:8.2f} {steps:8.2f} "
                  f"{ratio if ratio is not None else float('nan'):5.2f}x")
    for status in ("error", "fail", "warn"):
        rows = [f for f in result["findings"] if f["status"] == status]
        print(f"\n{status.upper()} verdicts ({len(rows)}), with their measured reasons:")
        for f in rows:
            print(f"  {f['setup']} [{f['optimizer']}, seed {f['seed']}] {f['check']}: {f['summary']}")
    print("\ntime per check (mean seconds over the setup's runs):")
    print(f"{'setup':32} " + "".join(f"{i + 1:>6}" for i in range(len(CHECK_IDS))))
    for name, s in result["setups"].items():
        print(f"{name:32} " + "".join(f"{s['check_seconds'].get(c, float('nan')):6.2f}" for c in CHECK_IDS))
    c = result["counts"]
    runs = len(result["runs"])
    print(f"\n{runs} runs over {len(result['setups'])} setups: {c['fail']} FAIL, {c['error']} error, {c['warn']} WARN "
          f"({result['warns_per_run']:.2f} per run; target <= {TARGET_WARNS_PER_RUN:.0f}), {c['pass']} pass, "
          f"{c['skipped']} skipped")
    worst = result["worst_ratio"]
    slow = [n for n, s in result["setups"].items() if s["worst_ratio"] is not None and s["worst_ratio"] > TARGET_RATIO]
    print(f"suite / 200 plain steps: worst {worst if worst is not None else float('nan'):.2f}x (target <= "
          f"{TARGET_RATIO:.0f}x on every setup); over target: {', '.join(slow) or 'none'}")
    missed = [k for k, ok in result["targets"].items() if not ok]
    print("targets met" if not missed else f"TARGETS MISSED: {', '.join(missed)}")


def parse_seeds(text: str) -> list[int]:
    return [int(s) for s in text.split(",")] if "," in text else list(range(int(text)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="setup name(s), comma-separated or repeated")
    parser.add_argument("--seeds", default="3", help="a count (3: seeds 0, 1, 2) or a comma-separated list")
    parser.add_argument("--variants", choices=sorted(VARIANTS), default="both",
                        help="with the authors' optimizer (given), without one (default), or both")
    parser.add_argument("--json", type=Path, help="also write the full result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no per-run progress lines on stderr")
    args = parser.parse_args(argv)
    names = [n for chunk in (args.only or []) for n in chunk.split(",") if n] or list(SETUPS)
    unknown = sorted(set(names) - set(SETUPS))
    if unknown:
        parser.error(f"unknown setup(s) {unknown}; choose from {', '.join(SETUPS)}")
    result = run(names, parse_seeds(args.seeds), VARIANTS[args.variants], progress=not args.quiet)
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if all(result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
