"""`diagnose` on an accelerator against the same setups on CPU, side by side.

Every check is written and unit-tested on CPU; this benchmark is what says the device paths hold. For
each healthy setup of the zoo (benchmarks/diagnose_zoo/) and of the mutation benchmark
(benchmarks/diagnose_setups/), and for each one-line bug of the mutation benchmark, it runs the whole
suite twice on fresh copies of the same spec, built on CPU as a user builds it: once with
`device="cpu"` and once with `--device` (default `cuda`, which diagnose reaches by moving the model and
batch). It reports per case the verdict of every check on both, the checks whose verdicts differ (with
the device's reason), and the setups where the suite itself broke on the device.

    python benchmarks/diagnose_device.py [--device cuda] [--jobs 8] [--only NAME[,NAME]] [--json FILE]

Targets (exit status 1 when one is missed): on the device, no FAIL and no error on a healthy setup, every
mutation that CPU catches caught, and no suite that breaks. A healthy setup whose own train_step or loss makes
tensors without a device (it was written for CPU) cannot run on the GPU; diagnose says so with the fix, and
those are counted apart. Verdicts may differ where a check measures
timing or floating-point noise; each difference is listed so it can be read. Exit status 2 when the
device is not there (no CUDA on this machine: nothing to compare).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MARKS = {"pass": ".", "warn": "W", "fail": "F", "error": "E", "skipped": "-"}
FIRED = ("warn", "fail")


def cases(only: set[str] | None) -> list[tuple[str, str, int]]:
    """(kind, name, index): healthy zoo setups, healthy mutation setups, and the mutations themselves."""
    from benchmarks.diagnose_setups.mutations import MUTATIONS, SETUPS
    from benchmarks.diagnose_zoo import SETUPS as ZOO

    found = [("zoo", name, 0) for name in ZOO] + [("setup", name, 0) for name in SETUPS]
    found += [("mutation", m.name, i) for i, m in enumerate(MUTATIONS)]
    return [c for c in found if only is None or c[1] in only]


def _spec(kind: str, name: str, index: int) -> dict:
    from benchmarks.diagnose_setups import mutations
    from benchmarks.diagnose_zoo import load_spec as zoo_spec

    if kind == "zoo":
        return zoo_spec(name, 0, True)
    if kind == "setup":
        return mutations.load_spec(name, seed=0)
    m = mutations.MUTATIONS[index]
    return mutations.load_spec(m.setup, mutations.mutated_source(m), seed=0)


def _suite(kind: str, name: str, index: int, device: str) -> dict:
    from mldebug_mcp.diagnostics.checks import run_checks

    started = time.perf_counter()
    try:
        report = run_checks(_spec(kind, name, index), seed=0, device=device)
    except Exception as exc:  # noqa: BLE001 - the suite itself broke: that is the finding
        return {"run_error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=8),
                "seconds": time.perf_counter() - started, "checks": {}}
    checks = {c["id"]: {"status": c["status"], "summary": c["summary"],
                        **({"traceback": c["traceback"]} if c.get("traceback") else {})} for c in report["checks"]}
    return {"seconds": time.perf_counter() - started, "checks": checks}


def one_case(case: tuple[str, str, int], device: str) -> dict:
    import torch

    torch.set_num_threads(1)  # tiny setups; threads only add scheduling noise between the workers
    kind, name, index = case
    row: dict = {"kind": kind, "name": name, "cpu": _suite(kind, name, index, "cpu"),
                 "device": _suite(kind, name, index, device)}
    if kind == "mutation":
        from benchmarks.diagnose_setups.mutations import MUTATIONS

        row["intended"] = MUTATIONS[index].check
    return row


def compare(rows: list[dict]) -> dict:
    """Differences and target counts from the rows of one_case (pure: unit-tested on CPU)."""
    from mldebug_mcp.diagnostics.checks.device import is_device_mismatch

    differences, broken, healthy_alarms, not_portable = [], [], [], []
    caught: dict = {"cpu": 0, "device": 0, "lost": []}
    agree = total = 0
    for row in rows:
        cpu, dev = row["cpu"], row["device"]
        if dev.get("run_error") and not cpu.get("run_error"):
            broken.append({"name": row["name"], "error": dev["run_error"], "traceback": dev.get("traceback", "")})
        for check in sorted(set(cpu["checks"]) | set(dev["checks"])):
            was = cpu["checks"].get(check, {}).get("status")
            now = dev["checks"].get(check, {}).get("status")
            total += 1
            if was == now:
                agree += 1
            else:
                differences.append({"name": row["name"], "check": check, "cpu": was, "device": now,
                                    "summary": dev["checks"].get(check, {}).get("summary", dev.get("run_error", "")),
                                    "traceback": dev["checks"].get(check, {}).get("traceback", "")})
            if row["kind"] != "mutation" and now in ("fail", "error"):
                said = {"name": row["name"], "check": check, "status": now, "summary": dev["checks"][check]["summary"]}
                # a spec whose own code makes tensors where it was built cannot run there: said so, not a verdict
                (not_portable if is_device_mismatch(said["summary"]) else healthy_alarms).append(said)
        if row["kind"] == "mutation":
            on_cpu = cpu["checks"].get(row["intended"], {}).get("status") in FIRED
            on_device = dev["checks"].get(row["intended"], {}).get("status") in FIRED
            caught["cpu"] += on_cpu
            caught["device"] += on_device
            if on_cpu and not on_device:
                caught["lost"].append(row["name"])
    met = {"no_broken_suite": not broken, "no_fail_or_error_on_healthy": not healthy_alarms,
           "mutations_kept": not caught["lost"]}
    return {"agree": agree, "verdicts": total, "differences": differences, "broken": broken,
            "healthy_alarms": healthy_alarms, "not_portable": not_portable, "caught": caught, "targets": met}


def print_report(rows: list[dict], result: dict, device: str, seconds: float) -> None:
    from mldebug_mcp.diagnostics.checks import CHECK_IDS

    print("checks: " + "  ".join(f"{i + 1}={c}" for i, c in enumerate(CHECK_IDS)))
    print(f"verdicts per check, cpu | {device}:  . pass  W warn  F fail  E error  - skipped  ? none\n")
    for row in rows:
        marks = ["".join(MARKS.get(row[side]["checks"].get(c, {}).get("status"), "?") for c in CHECK_IDS)
                 for side in ("cpu", "device")]
        times = f"{row['cpu']['seconds']:6.1f} s | {row['device']['seconds']:6.1f} s"
        print(f"{row['kind']:8} {row['name']:36} {marks[0]} | {marks[1]}  {times}")
    print(f"\n{result['agree']} of {result['verdicts']} verdicts agree; differences ({len(result['differences'])}):")
    for d in result["differences"]:
        print(f"  {d['name']} {d['check']}: cpu {d['cpu']} -> {device} {d['device']}: {d['summary']}")
        if d["traceback"]:
            print("    " + d["traceback"].strip().splitlines()[-1])
    print(f"\nsuites that broke on {device} only ({len(result['broken'])}):")
    for b in result["broken"]:
        print(f"  {b['name']}: {b['error']}")
    print(f"FAIL or error on a healthy setup on {device} ({len(result['healthy_alarms'])}):")
    for a in result["healthy_alarms"]:
        print(f"  {a['name']} {a['check']} {a['status']}: {a['summary']}")
    print(f"specs whose own code keeps tensors off {device}, reported with the fix ({len(result['not_portable'])}):")
    for a in result["not_portable"]:
        print(f"  {a['name']} {a['check']} {a['status']}: {a['summary'][:160]}")
    c = result["caught"]
    print(f"mutations caught: cpu {c['cpu']}, {device} {c['device']}; lost on {device}: {', '.join(c['lost']) or 'none'}")
    print(f"{len(rows)} cases in {seconds:.0f} s")
    missed = [k for k, ok in result["targets"].items() if not ok]
    print("targets met" if not missed else f"TARGETS MISSED: {', '.join(missed)}")


def _worker(arguments: tuple) -> dict:
    case, device = arguments
    return one_case(case, device)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="the device to compare with cpu (default cuda)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (spawned: CUDA needs it)")
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--json", type=Path, help="also write every row and the comparison as JSON")
    args = parser.parse_args()
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(f"no CUDA device here (torch {torch.__version__}): nothing to compare; run this on a GPU machine",
              file=sys.stderr)
        return 2
    chosen = cases(set(args.only.split(",")) if args.only else None)
    if not chosen:
        print(f"no case named {args.only!r}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    if args.jobs > 1:
        # a fresh process per case: a device-side assert leaves its CUDA context unusable for the next case
        with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=1) as pool:
            rows = pool.map(_worker, [(c, args.device) for c in chosen], chunksize=1)
    else:
        rows = [one_case(c, args.device) for c in chosen]
    result = compare(rows)
    print(f"torch {torch.__version__}, device {args.device}"
          + (f" ({torch.cuda.get_device_name()})" if args.device.startswith("cuda") else ""))
    print_report(rows, result, args.device, time.perf_counter() - started)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "result": result, "torch": torch.__version__}, indent=2))
    return 0 if all(result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
