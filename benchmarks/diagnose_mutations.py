"""Mutation benchmark for `diagnose`: detection of one-line bugs, false alarms, and cost.

Four clean setups (benchmarks/diagnose_setups: MLP classifier, CNN with BatchNorm, tiny
causal transformer LM, regression net) and their one-line bug mutations (mutations.py).
In one run it measures:

- detection: a mutation counts as detected when the check it is meant for reports warn
  or fail (other checks firing too is listed but not counted);
- false alarms: any warn or fail on a clean setup, over --clean-seeds seeds;
- cost: the full suite's time divided by the time of 200 plain training steps of the same
  setup (the spec's optimizer and train_step), measured side by side, alternating, median
  of --rounds rounds, in this process (the subprocess start-up of the CLI is reported
  separately by --subprocess).

    python benchmarks/diagnose_mutations.py [--clean-seeds 5] [--mutation-seeds 1] [--rounds 3] [--json FILE]

Targets: >= 90% detected, no false alarm, suite <= 3x of 200 steps. Exit status 1 when missed.
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

from benchmarks.diagnose_setups.mutations import MUTATIONS, SETUPS, load_spec, mutated_source  # noqa: E402
from mldebug_mcp.diagnostics.checks import run_checks  # noqa: E402

TARGET_DETECTION, TARGET_RATIO = 0.90, 3.0
FIRED = ("warn", "fail")


def plain_steps(setup: str, seed: int, steps: int = 200) -> float:
    """Seconds for `steps` ordinary training steps, as the user's own loop would run them."""
    import torch

    spec = load_spec(setup, seed=seed)
    model = spec["model"]
    model.train()
    make = spec.get("optimizer") or (lambda p: torch.optim.Adam(p, lr=3e-4))
    optimizer = make(model.parameters())
    step = spec.get("train_step")
    started = time.perf_counter()
    for _ in range(steps):
        if step is not None:
            step(model, spec["batch"], optimizer)
        else:
            optimizer.zero_grad()
            spec["loss_fn"](model(spec["batch"][0]), spec["batch"][1]).backward()
            optimizer.step()
    return time.perf_counter() - started


def suite(spec: dict, seed: int) -> tuple[dict, float]:
    started = time.perf_counter()
    report = run_checks(spec, seed=seed)
    return report, time.perf_counter() - started


def fired(report: dict) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"] if c["status"] in FIRED}


def run(clean_seeds: int, mutation_seeds: int, rounds: int) -> dict:
    import torch

    torch.set_num_threads(1)  # the setups are tiny; threads only add scheduling noise
    false_alarms, costs = [], {}
    for setup in SETUPS:
        for seed in range(clean_seeds):
            report, _ = suite(load_spec(setup, seed=seed), seed)
            for check, status in fired(report).items():
                false_alarms.append({"setup": setup, "seed": seed, "check": check, "status": status,
                                     "summary": next(c["summary"] for c in report["checks"] if c["id"] == check)})
        suite_times, step_times = [], []
        for _ in range(rounds):  # alternate so drift in machine load hits both sides alike
            step_times.append(plain_steps(setup, 0))
            suite_times.append(suite(load_spec(setup, seed=0), 0)[1])
        costs[setup] = {"suite_s": statistics.median(suite_times), "steps200_s": statistics.median(step_times)}
        costs[setup]["ratio"] = costs[setup]["suite_s"] / costs[setup]["steps200_s"]
    mutations = []
    for m in MUTATIONS:
        for seed in range(mutation_seeds):
            report, seconds = suite(load_spec(m.setup, mutated_source(m), seed=seed), seed)
            hits = fired(report)
            intended = next(c for c in report["checks"] if c["id"] == m.check)
            mutations.append({"name": m.name, "setup": m.setup, "seed": seed, "check": m.check,
                              "detected": m.check in hits, "intended_status": intended["status"],
                              "intended_summary": intended["summary"], "also_fired": sorted(set(hits) - {m.check}),
                              "seconds": seconds})
    for r in mutations:  # buggy setups rarely stop early, so their suites run the whole step budget
        r["ratio"] = r["seconds"] / costs[r["setup"]]["steps200_s"]
    detected = sum(r["detected"] for r in mutations)
    return {"mutations": mutations, "detection_rate": detected / len(mutations), "detected": detected,
            "mutation_runs": len(mutations), "false_alarms": false_alarms,
            "clean_runs": len(SETUPS) * clean_seeds, "costs": costs,
            "worst_ratio": max(c["ratio"] for c in costs.values()),
            "worst_mutation_ratio": max(r["ratio"] for r in mutations),
            "torch": torch.__version__}


def print_report(result: dict) -> None:
    print(f"{'mutation':34} {'setup':15} {'intended check':20} {'result':8} also fired")
    for r in result["mutations"]:
        mark = "caught" if r["detected"] else "MISSED"
        print(f"{r['name']:34} {r['setup']:15} {r['check']:20} {mark:8} {', '.join(r['also_fired']) or '-'}")
        if not r["detected"]:
            print(f"{'':34}   -> {r['intended_status']}: {r['intended_summary']}")
    print()
    print(f"detection: {result['detected']}/{result['mutation_runs']} = {result['detection_rate']:.0%} "
          f"(target >= {TARGET_DETECTION:.0%})")
    print(f"false alarms: {len(result['false_alarms'])} in {result['clean_runs']} clean runs (target 0)")
    for alarm in result["false_alarms"]:
        print(f"  {alarm['setup']} seed {alarm['seed']}: {alarm['check']} {alarm['status']}: {alarm['summary']}")
    print("cost (median of rounds, one thread):")
    for setup, c in result["costs"].items():
        print(f"  {setup:15} suite {c['suite_s']:.2f} s / 200 steps {c['steps200_s']:.2f} s = {c['ratio']:.2f}x")
    print(f"worst ratio {result['worst_ratio']:.2f}x on a clean setup (target <= {TARGET_RATIO:.0f}x); "
          f"on a mutated setup, which runs the full step budget: {result['worst_mutation_ratio']:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean-seeds", type=int, default=5)
    parser.add_argument("--mutation-seeds", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the full result as JSON")
    args = parser.parse_args()
    result = run(args.clean_seeds, args.mutation_seeds, args.rounds)
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    met = (result["detection_rate"] >= TARGET_DETECTION and not result["false_alarms"]
           and result["worst_ratio"] <= TARGET_RATIO)
    print("targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
