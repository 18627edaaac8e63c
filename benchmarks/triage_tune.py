"""Coarse grid over the ranking's likelihood factors, scored by 5-fold cross-validation on the bundled case
base: each case is scored against an index built without its fold.

The forum benchmark's development cases used to be scored here as well; since paraphrases of every
collected_a/b/c thread joined the case base they would only measure recall, so the grid now uses the
case base alone. The held-out cases (collected_d.yaml) are never scored here, so the factors cannot be
fitted to them. Prints the best settings by top-3 (then top-1), the current ones, and the calibration
check behind TEMPERATURE.

    python benchmarks/triage_tune.py
"""

from __future__ import annotations

import hashlib
import itertools

from mldebug_mcp.triage import matcher, ranking
from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.matcher import CauseIndex
from mldebug_mcp.triage_service import triage

GRID = {  # the factors that moved the scores in earlier sweeps; others (domain, signal) were flat
    (ranking, "TEXT_BETA"): (16.0, 20.0, 24.0, 30.0),
    (matcher, "NB_SHARE"): (0.15, 0.25, 0.4),
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


def score(held_out: list[tuple[dict, CauseIndex]]) -> tuple[int, int]:
    """Cross-validated top-3 and top-1 hits over the case base."""
    top3 = top1 = 0
    for case, index in held_out:
        ranked = [h.cause for h in triage(case["symptom"], limit=5, index=index).hypotheses]
        top3 += any(c in ranked[:3] for c in case["causes"])
        top1 += any(c in ranked[:1] for c in case["causes"])
    return top3, top1


def calibration(held_out: list[tuple[dict, CauseIndex]]) -> tuple[float, float]:
    """Mean weight of the front runner and how often it is right (TEMPERATURE is set so the two are close)."""
    weights, hits = [], []
    for case, index in held_out:
        first = triage(case["symptom"], limit=1, index=index).hypotheses[0]
        weights.append(first.weight)
        hits.append(first.cause in case["causes"])
    return sum(weights) / len(weights), sum(hits) / len(hits)


def main() -> None:
    held_out = held_out_indexes()
    n = len(held_out)
    current = {key: getattr(*key) for key in GRID}
    top3, top1 = score(held_out)
    print(f"{n} case-base cases; current settings: top-3 {top3}/{n} = {top3 / n:.0%}, top-1 {top1}/{n}")
    results = []
    for values in itertools.product(*GRID.values()):
        for (module, name), value in zip(GRID, values):
            setattr(module, name, value)
        results.append((score(held_out), values))
    for (module, name), value in current.items():
        setattr(module, name, value)
    mean_weight, top1_rate = calibration(held_out)
    print(f"calibration at the current settings: front runner's mean weight {mean_weight:.2f}, "
          f"right {top1_rate:.0%} of the time (TEMPERATURE={ranking.TEMPERATURE})")
    for (top3, top1), values in sorted(results, key=lambda r: (-r[0][0], -r[0][1]))[:8]:
        settings = ", ".join(f"{name}={v}" for (_, name), v in zip(GRID, values))
        print(f"top-3 {top3}/{n} = {top3 / n:.0%}  top-1 {top1}  {settings}")


if __name__ == "__main__":
    main()
