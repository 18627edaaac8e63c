"""One arm against the baseline: paired differences on shared seeds (else Welch's t), a bootstrap
interval, and the verdict once the p-values of all comparisons are corrected together (Holm).

The paired view is the primary one: it removes each seed's own luck, which refs/sweeps.md's worked
example shows the z-score view cannot always do (one arm's freak seed drags the others' z).
"""

from __future__ import annotations

import math
import random
import statistics

from ..models.sweep import SeedDifference, SweepComparison
from .sweep_stats import (
    bootstrap_difference_ci,
    bootstrap_mean_ci,
    holm,
    mean,
    one_sample_t,
    sd,
    welch_t,
)

LARGE_EFFECT = 0.5  # |mean difference| / baseline seed-to-seed sd above which a lucky seed is looked for


def compare(arm: str, baseline: str, arm_values: dict[str, float], base_values: dict[str, float], paired: bool,
            higher_is_better: bool, level: float, resamples: int, rng: random.Random) -> SweepComparison:
    """The comparison before correction: `*_values` map a seed (or a run name when unpaired) to the metric."""
    result = SweepComparison(arm=arm, baseline=baseline, changed=[], method="none")
    shared = [seed for seed in base_values if seed in arm_values] if paired else []
    sign = 1.0 if higher_is_better else -1.0
    if len(shared) >= 2:
        differences = [arm_values[s] - base_values[s] for s in shared]
        result.method, result.shared_seeds = "paired", shared
        result.differences = [SeedDifference(seed=s, arm=arm_values[s], baseline=base_values[s],
                                             difference=arm_values[s] - base_values[s]) for s in shared]
        result.mean_difference, result.sd_difference = mean(differences), sd(differences)
        result.wins = sum(1 for d in differences if sign * d > 0)
        test = one_sample_t(differences)
        result.ci_low, result.ci_high = bootstrap_mean_ci(differences, level, resamples, rng)
        if test and test.t is None:
            result.notes.append("every shared seed gave the same difference, so t is undefined (no spread); "
                                "p is taken as 0 for a non-zero difference")
    else:
        a, b = list(arm_values.values()), list(base_values.values())
        test = welch_t(a, b)
        if test is None:
            return result
        result.method, result.mean_difference = "unpaired", mean(a) - mean(b)
        result.ci_low, result.ci_high = bootstrap_difference_ci(a, b, level, resamples, rng)
    if test is not None:
        result.t, result.df, result.p = test.t, test.df, test.p
    spread = sd(list(base_values.values()))
    if spread and result.mean_difference is not None:
        result.effect_over_spread = result.mean_difference / spread
        if result.method == "paired" and abs(result.effect_over_spread) >= LARGE_EFFECT:
            result.notes += _carried_by_few(shared, [d.difference for d in result.differences])
    return result


def _carried_by_few(seeds: list[str], differences: list[float]) -> list[str]:
    """A large mean pulled by one seed: the median difference points the other way, or one seed outweighs the
    rest. Asked only of a mean at least LARGE_EFFECT baseline standard deviations: the sheet's 'large mean, low
    |t|' row; a small mean carried by one seed misleads nobody."""
    if len(differences) < 3:
        return []
    centre, middle = statistics.fmean(differences), statistics.median(differences)
    largest = max(range(len(differences)), key=lambda i: abs(differences[i]))
    rest = math.fsum(abs(d) for i, d in enumerate(differences) if i != largest)
    if (centre > 0) != (middle > 0) or abs(differences[largest]) > 2 * rest:
        return [(f"seed {seeds[largest]} carries the mean ({differences[largest]:+.4g}; median difference "
                 f"{middle:+.4g}): a large mean with a low t is the lucky-seed pattern; open that seed's logs before "
                 "believing it (refs/sweeps.md, Reading a sweep table)")]
    return []


def correct_and_judge(comparisons: list[SweepComparison], alpha: float, higher_is_better: bool,
                      metric: str, spread: float | None, level: float) -> str:
    """Holm-adjust the p-values of every comparison that has one, set each verdict and summary; the
    correction's description for the report."""
    tested = [c for c in comparisons if c.p is not None]
    for comparison, adjusted in zip(tested, holm([c.p for c in tested])):
        comparison.p_adjusted = adjusted
    sign = 1.0 if higher_is_better else -1.0
    for c in comparisons:
        if c.p_adjusted is None or c.mean_difference is None:
            c.verdict = "undetermined"
            c.summary = "too few runs to compare: each arm needs two runs (two shared seeds to pair)"
            continue
        effect = c.p_adjusted < alpha and c.mean_difference != 0
        c.verdict = ("better" if sign * c.mean_difference > 0 else "worse") if effect else "within_noise"
        c.summary = _summary(c, alpha, metric, spread, level, len(tested))
    if len(tested) <= 1:
        return "none needed: one comparison"
    return (f"Holm-Bonferroni over {len(tested)} comparisons against the baseline, family-wise error {alpha:g}: the "
            f"smallest p is multiplied by {len(tested)}, the next by {len(tested) - 1}, and so on")


def _summary(c: SweepComparison, alpha: float, metric: str, spread: float | None, level: float, tests: int) -> str:
    how = (f"on {len(c.shared_seeds)} shared seeds, better on {c.wins}/{len(c.shared_seeds)}"
           if c.method == "paired" else "unpaired (seeds not shared)")
    t = "t undefined" if c.t is None else f"{'paired' if c.method == 'paired' else 'Welch'} t = {c.t:.3g}"
    p = f"p = {c.p:.3g}" + (f", Holm-adjusted {c.p_adjusted:.3g}" if tests > 1 else "")
    noise = f"; baseline seed-to-seed sd {spread:.4g}" if spread else ""
    reading = {"better": "an effect larger than seed noise, in the metric's good direction",
               "worse": "an effect larger than seed noise, in the metric's bad direction",
               "within_noise": "not distinguishable from seed noise"}[c.verdict]
    compared = "<" if (c.p_adjusted or 0) < alpha else ">="
    return (f"{c.mean_difference:+.4g} {metric} ({level:.0%} CI {c.ci_low:+.4g} to {c.ci_high:+.4g}) {how}; {t}, "
            f"{p} {compared} {alpha:g}{noise}: {reading}")
