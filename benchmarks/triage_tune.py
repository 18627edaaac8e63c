"""Coarse grid over the ranking's likelihood factors, scored on the DEVELOPMENT cases only.

The held-out cases are never scored here, so the factors cannot be fitted to them. Prints the best
settings by dev top-3 (ties broken by top-1) next to the current ones.

    python benchmarks/triage_tune.py
"""

from __future__ import annotations

import itertools

from triage_forum_cases import load_cases

from mldebug_mcp.triage import matcher, ranking
from mldebug_mcp.triage_service import triage

GRID = {
    (ranking, "TEXT_BETA"): (6.0, 10.0, 16.0),
    (ranking, "PRIOR_POWER"): (0.5, 1.0),
    (ranking, "READ_STRENGTH"): (0.5, 1.0),
    (matcher, "SENTENCE_SHARE"): (0.0, 0.35, 0.7),
    (matcher, "KEYWORD_SHARE"): (0.1, 0.35),
}


def score(cases: list[dict]) -> tuple[int, int]:
    top3 = top1 = 0
    for case in cases:
        ranked = [h.cause for h in triage(case["symptom"], limit=5).hypotheses]
        top3 += any(c in ranked[:3] for c in case["causes"])
        top1 += any(c in ranked[:1] for c in case["causes"])
    return top3, top1


def main() -> None:
    dev = [c for c in load_cases() if c["split"] == "dev"]
    current = {key: getattr(*key) for key in GRID}
    print(f"{len(dev)} dev cases; current settings score top-3/top-1 = {score(dev)}")
    results = []
    for values in itertools.product(*GRID.values()):
        for (module, name), value in zip(GRID, values):
            setattr(module, name, value)
        results.append((score(dev), values))
    for (module, name), value in current.items():
        setattr(module, name, value)
    for (top3, top1), values in sorted(results, reverse=True)[:8]:
        settings = ", ".join(f"{name}={v}" for (_, name), v in zip(GRID, values))
        print(f"top-3 {top3}/{len(dev)}  top-1 {top1}  {settings}")


if __name__ == "__main__":
    main()
