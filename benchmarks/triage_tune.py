"""Coarse grid over the ranking's likelihood factors, scored on the DEVELOPMENT cases only, and on the
bundled case base by 5-fold cross-validation (each case scored against an index built without its fold).

The held-out cases are never scored here, so the factors cannot be fitted to them. Prints the best
settings by dev top-3 (ties broken by top-1) next to the current ones.

    python benchmarks/triage_tune.py
"""

from __future__ import annotations

import hashlib
import itertools

from triage_forum_cases import load_cases

from mldebug_mcp.triage import matcher, ranking
from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.matcher import CauseIndex
from mldebug_mcp.triage_service import triage

GRID = {  # the factors that moved the scores in earlier sweeps; others (domain, signal) were flat
    (ranking, "TEXT_BETA"): (12.0, 16.0, 20.0, 24.0),
    (matcher, "NB_SHARE"): (0.25, 0.4, 0.6),
    (matcher, "CASE_SHARE"): (0.3, 0.6, 0.9),
}
FOLDS = 5


def fold_of(url: str) -> int:
    return int(hashlib.sha1(url.encode()).hexdigest(), 16) % FOLDS


def held_out_indexes() -> list[tuple[dict, CauseIndex]]:
    """Each case of the bundled case base with an index built without its fold (cross-validation)."""
    catalogue = load_catalogue()
    indexes = [CauseIndex(catalogue.model_copy(update={"cases": tuple(c for c in catalogue.cases if fold_of(c.url) != k)}))
               for k in range(FOLDS)]
    return [({"symptom": case.symptom, "causes": [case.cause]}, indexes[fold_of(case.url)]) for case in catalogue.cases]


def score(cases: list[dict], held_out: list[tuple[dict, CauseIndex]]) -> tuple[int, int, int]:
    """Dev top-3, dev top-1, and cross-validated top-3 over the case base."""
    top3 = top1 = cv3 = 0
    for case in cases:
        ranked = [h.cause for h in triage(case["symptom"], limit=5).hypotheses]
        top3 += any(c in ranked[:3] for c in case["causes"])
        top1 += any(c in ranked[:1] for c in case["causes"])
    for case, index in held_out:
        ranked = [h.cause for h in triage(case["symptom"], limit=5, index=index).hypotheses]
        cv3 += any(c in ranked[:3] for c in case["causes"])
    return top3, top1, cv3


def calibration(cases: list[dict], held_out: list[tuple[dict, CauseIndex]]) -> tuple[float, float]:
    """Mean weight of the front runner and how often it is right, over dev and the cross-validated case base
    (TEMPERATURE is set so the two are close)."""
    weights, hits = [], []
    for case, index in [(c, None) for c in cases] + held_out:
        first = triage(case["symptom"], limit=1, index=index).hypotheses[0]
        weights.append(first.weight)
        hits.append(first.cause in case["causes"])
    return sum(weights) / len(weights), sum(hits) / len(hits)


def main() -> None:
    dev = [c for c in load_cases() if c["split"] == "dev"]
    held_out = held_out_indexes()
    current = {key: getattr(*key) for key in GRID}
    print(f"{len(dev)} dev cases, {len(held_out)} case-base cases; current settings: dev top-3, dev top-1, "
          f"case-base top-3 = {score(dev, held_out)}")
    results = []
    for values in itertools.product(*GRID.values()):
        for (module, name), value in zip(GRID, values):
            setattr(module, name, value)
        results.append((score(dev, held_out), values))
    for (module, name), value in current.items():
        setattr(module, name, value)
    mean_weight, top1_rate = calibration(dev, held_out)
    print(f"calibration at the current settings: front runner's mean weight {mean_weight:.2f}, "
          f"right {top1_rate:.0%} of the time (TEMPERATURE={ranking.TEMPERATURE})")
    # Rank by the sum of the two top-3 rates, so neither the small dev set nor the paraphrases dominate.
    for (top3, top1, cv3), values in sorted(results, key=lambda r: -(r[0][0] / len(dev) + r[0][2] / len(held_out)))[:8]:
        settings = ", ".join(f"{name}={v}" for (_, name), v in zip(GRID, values))
        print(f"dev top-3 {top3}/{len(dev)}  top-1 {top1}  case-base top-3 {cv3}/{len(held_out)}  {settings}")


if __name__ == "__main__":
    main()
