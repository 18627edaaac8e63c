"""The A/B results table (issue 23): per arm and per task, with 95% intervals.

    python benchmarks/agent_ab/summarise.py results/full-2026-11-27.yaml [more.yaml ...]

Reads the records `harness.py score` writes (with a blind judge's verdicts merged in as `judge:`) and prints:
- per arm: tasks fixed (acceptance test) k/n with a Wilson 95% interval, cause named by the judge (yes / partial),
  harmful advice, anti-patterns the advice guard flags per answer, commands, minutes and tool calls (means);
- the difference in fixed rate between each helped arm and no help, with a 95% interval from a bootstrap over
  tasks (runs resampled within each task), since runs of one task are not independent of each other;
- per task: fixed runs per arm.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections import defaultdict
from pathlib import Path

import yaml

ARMS = ("none", "skill", "tools")
Z = 1.959964  # two-sided 95%


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (no runs: the whole range)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_difference(runs: dict[str, dict[str, list[bool]]], arm: str, base: str = "none",
                         rounds: int = 4000, seed: int = 0) -> tuple[float, float, float]:
    """The fixed-rate difference arm - base over the tasks both arms ran, and its 95% interval: tasks resampled
    with replacement, then each task's runs within each arm."""
    tasks = sorted(t for t in runs if runs[t].get(arm) and runs[t].get(base))
    if not tasks:
        return 0.0, 0.0, 0.0

    def rate(chosen: list[str], which: str, rng: random.Random | None) -> float:
        fixed = []
        for task in chosen:
            outcomes = runs[task][which]
            fixed += [rng.choice(outcomes) for _ in outcomes] if rng else outcomes
        return sum(fixed) / len(fixed)

    point = rate(tasks, arm, None) - rate(tasks, base, None)
    rng = random.Random(seed)
    draws = sorted(rate(chosen, arm, rng) - rate(chosen, base, rng)
                   for chosen in ([rng.choice(tasks) for _ in tasks] for _ in range(rounds)))
    return point, draws[int(0.025 * rounds)], draws[int(0.975 * rounds) - 1]


def load(paths: list[Path]) -> list[dict]:
    records = []
    for path in paths:
        records += yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return records


def _verdict(value) -> str:
    """A judge's 'yes' / 'no' reads back from YAML as a boolean; 'partial' stays a string."""
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _mean(values: list) -> float:
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values else float("nan")


def table(records: list[dict]) -> str:
    by_arm: dict[str, list[dict]] = defaultdict(list)
    runs: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        by_arm[r["arm"]].append(r)
        runs[r["task"]][r["arm"]].append(bool(r["fixed"]))
    lines = ["| arm | runs | fixed (95% CI) | cause named yes / partial | harmful advice | anti-patterns per answer "
             "| commands | minutes | tool calls |", "|---|---|---|---|---|---|---|---|---|"]
    for arm in ARMS:
        rs = by_arm.get(arm, [])
        if not rs:
            continue
        k, n = sum(bool(r["fixed"]) for r in rs), len(rs)
        low, high = wilson(k, n)
        judged = [r["judge"] for r in rs if r.get("judge")]
        yes = sum(_verdict(j.get("cause")) == "yes" for j in judged)
        partial = sum(_verdict(j.get("cause")) == "partial" for j in judged)
        harmful = sum(str(j.get("harmful_advice")).lower() in ("yes", "true") for j in judged)
        lines.append(f"| {arm} | {n} | {k}/{n} = {k / n:.0%} ({low:.0%}-{high:.0%}) | {yes} / {partial} of {len(judged)} "
                     f"| {harmful} | {_mean([len(r.get('anti_patterns') or []) for r in rs]):.2f} "
                     f"| {_mean([r.get('commands') for r in rs]):.1f} | {_mean([r.get('minutes') for r in rs]):.1f} "
                     f"| {_mean([r.get('tool_calls') for r in rs]):.1f} |")
    lines.append("")
    for arm in ARMS[1:]:
        point, low, high = bootstrap_difference(runs, arm)
        lines.append(f"- fixed rate, {arm} minus none: {point:+.1%} (95% bootstrap interval over tasks "
                     f"{low:+.1%} to {high:+.1%})")
    lines += ["", "| task | " + " | ".join(ARMS) + " |", "|---|" + "---|" * len(ARMS)]
    for task in sorted(runs):
        cells = [f"{sum(runs[task][a])}/{len(runs[task][a])}" if runs[task][a] else "-" for a in ARMS]
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    print(table(load(args.results)))


if __name__ == "__main__":
    main()
