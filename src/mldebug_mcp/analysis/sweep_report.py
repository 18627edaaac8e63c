"""analyze_sweep: the runs of a sweep -> SweepReport (arms, spread, z-scores, comparisons, warnings).

The method is refs/sweeps.md's: arms on shared seeds, within-seed z-scores and their cross-seed t,
paired differences against a named baseline; with, beyond the sheet's snippet, a p-value from
Student's t, Holm's correction over the comparisons (Lones: correct for multiple comparisons) and a
bootstrap interval of each effect (Henderson et al.: report bootstrap confidence intervals).
"""

from __future__ import annotations

import math
import random
import statistics

from ..models.sweep import SweepArm, SweepReport, SweepRun
from .sweep_arms import (
    Arm,
    changed_settings,
    choose_baseline,
    group_arms,
    setting_columns,
)
from .sweep_columns import RunsTable
from .sweep_compare import compare, correct_and_judge
from .sweep_stats import ROUNDING, mean, quantile, sd

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_DRAWS = 4_000_000  # resamples x values over all comparisons: bounds the time on big sweeps
SMALL_FOR_BOOTSTRAP = 10
MIN_SEEDS = 3  # Spinning Up asks for at least 3 seeds (refs/sweeps.md, Seed variance in RL)


def analyze_sweep(table: RunsTable, factor: list[str] | None = None, baseline: str | None = None,
                  alpha: float = 0.05, level: float = 0.95, rng_seed: int = 0,
                  resamples: int = BOOTSTRAP_RESAMPLES) -> SweepReport:
    keys, arms, warnings = group_arms(table.runs, factor)
    base, how = choose_baseline(arms, baseline)
    arms = [base] + [arm for arm in arms if arm is not base]
    paired = table.seed_column is not None
    values = {arm.label: _values(arm, paired, warnings) for arm in arms}
    sizes = sum(len(v) for v in values.values()) or 1
    resamples = max(200, min(resamples, BOOTSTRAP_DRAWS // sizes))
    columns = setting_columns(table.runs)
    comparisons = []
    for arm in arms[1:]:
        rng = random.Random(f"{rng_seed}:{arm.label}")  # one stream per arm: an arm's interval ignores the others
        comparison = compare(arm.label, base.label, values[arm.label], values[base.label], paired,
                             table.higher_is_better, level, resamples, rng)
        comparison.changed = changed_settings(arm, base, columns)
        if len(comparison.changed) > 1:
            comparison.notes.append(f"several settings changed against the baseline ({', '.join(comparison.changed)}):"
                                    " the effect belongs to the combination, not to one of them")
        comparisons.append(comparison)
    spread = sd(list(values[base.label].values()))
    correction = correct_and_judge(comparisons, alpha, table.higher_is_better, table.metric, spread, level)
    report = SweepReport(
        source=table.source, format=table.format, metric=table.metric, higher_is_better=table.higher_is_better,
        seed_column=table.seed_column, factor=keys, baseline=base.label,
        arms=[_arm_summary(arm, values[arm.label]) for arm in arms], comparisons=comparisons, alpha=alpha,
        correction=correction, ci_level=level, bootstrap_resamples=resamples,
        metric_candidates=table.metric_candidates, take=table.take, warnings=table.warnings + warnings,
        notes=table.notes + [how, "direction: " + ("higher" if table.higher_is_better else "lower")
                             + " is better" + (" (guessed from the name; pass --lower-is-better or "
                                               "--higher-is-better)" if table.direction_guessed else "")])
    smallest = min((len(c.differences) or len(values[c.arm]) for c in comparisons if c.method != "none"), default=0)
    if 0 < smallest < SMALL_FOR_BOOTSTRAP:
        report.notes.append(f"bootstrap intervals rest on as few as {smallest} values: a percentile bootstrap never "
                            "reaches beyond the values seen, so below about 10 seeds (our rule of thumb) its interval is too "
                            "narrow; the verdicts rest on the t-test, not on the interval")
    if paired:
        _z_scores(report, values)
    report.warnings += _design_warnings(report, values, alpha)
    return report


def _values(arm: Arm, paired: bool, warnings: list[str]) -> dict[str, float]:
    """Seed (or run name, unpaired) -> metric of an arm's usable runs; crashed and repeated runs are named."""
    found: dict[str, float] = {}
    crashed, repeated = [], []
    for run in arm.runs:
        if run.value is None or run.state is not None or (paired and run.seed is None):
            crashed.append(run.name + (f" [{run.state}]" if run.state else ""))
            continue
        key = run.seed if paired and run.seed is not None else run.name
        if key in found:
            repeated.append(key)
        found[key] = run.value
    if crashed:
        warnings.append(f"arm {arm.label!r}: {len(crashed)} run(s) left out, with no usable metric, no seed or a "
                        f"tracker state other than finished ({', '.join(crashed[:6])}): a NaN or missing metric is "
                        "usually a crashed or diverged run; read its log, since dropping it biases the arm's mean "
                        "(refs/sweeps.md, Pitfalls)")
    if repeated:
        warnings.append(f"arm {arm.label!r}: seed {', '.join(sorted(set(repeated))[:6])} appears more than once; the "
                        "last row is used (deduplicate reruns on run id)")
    return found


def _arm_summary(arm: Arm, values: dict[str, float]) -> SweepArm:
    numbers = list(values.values())
    have = bool(numbers)
    return SweepArm(
        label=arm.label, settings=arm.settings, n=len(numbers),
        runs=[SweepRun(run=r.name, seed=r.seed, value=r.value) for r in arm.runs],
        mean=mean(numbers) if have else None, sd=sd(numbers), min=min(numbers) if have else None,
        max=max(numbers) if have else None, q10=quantile(numbers, 0.1) if have else None,
        q90=quantile(numbers, 0.9) if have else None)


def _z_scores(report: SweepReport, values: dict[str, dict[str, float]]) -> None:
    """Within-seed z of each arm among the arms run on that seed (population std, as the sheet's snippet),
    then mean z, its spread across seeds and the cross-seed t. With two arms z is always +-1: left out."""
    if len(report.arms) < 3:
        return
    seeds = list(dict.fromkeys(seed for arm_values in values.values() for seed in arm_values))
    z: dict[str, list[float]] = {arm.label: [] for arm in report.arms}
    for seed in seeds:
        present = {label: v[seed] for label, v in values.items() if seed in v}
        if len(present) < 2:
            continue
        centre, scale = statistics.fmean(present.values()), statistics.pstdev(present.values())
        for label, value in present.items():
            z[label].append((value - centre) / scale if scale > 0 else 0.0)
    for arm in report.arms:
        scores = z[arm.label]
        if not scores:
            continue
        arm.mean_z, arm.sd_z = mean(scores), sd(scores)
        if arm.sd_z and arm.sd_z > ROUNDING:  # z of +-1 on every seed (two arms there) spreads by rounding only
            arm.t_z = arm.mean_z / (arm.sd_z / math.sqrt(len(scores)))


def _design_warnings(report: SweepReport, values: dict[str, dict[str, float]], alpha: float) -> list[str]:
    warnings = []
    base = values[report.baseline]
    if report.seed_column:
        for label, arm_values in values.items():
            missing, extra = sorted(set(base) - set(arm_values)), sorted(set(arm_values) - set(base))
            if label != report.baseline and (missing or extra):
                warnings.append(f"arm {label!r} does not share all seeds with the baseline (missing: "
                                f"{', '.join(missing[:8]) or 'none'}; not in the baseline: {', '.join(extra[:8]) or 'none'}"
                                "): only shared seeds are paired; run the same seeds in every arm")
    few = [label for label, v in values.items() if len(v) < MIN_SEEDS]
    if few:
        warnings.append(f"fewer than {MIN_SEEDS} seeds in {', '.join(repr(f) for f in few[:8])}"
                        f"{' and more' if len(few) > 8 else ''}: with so few runs seed noise cannot be estimated "
                        "well; Spinning Up asks for at least 3 seeds, 10 or more to be thorough (refs/sweeps.md)")
    confounded = [c.arm for c in report.comparisons if len(c.changed) > 1]
    if confounded:
        warnings.append(f"several settings changed between the baseline and {', '.join(repr(a) for a in confounded[:8])}:"
                        " an effect there cannot be credited to one of them (Sculley's CACE); vary one factor at a "
                        "time, or read the arms as combinations")
    lucky = [c for c in report.comparisons if c.p is not None and c.p < alpha and c.verdict == "within_noise"]
    if lucky:
        best = min(lucky, key=lambda c: c.p or 1.0)
        warnings.append(
            f"multiple comparisons: {len(lucky)} arm(s) reach p < {alpha:g} alone (best {best.arm!r}, p = {best.p:.2g}) "
            f"but not after Holm's correction over {len(report.comparisons)} comparisons (adjusted "
            f"{best.p_adjusted:.2g}): with that many arms one such result is expected by chance. Treat the winner as a "
            "hypothesis and confirm it on fresh seeds (refs/sweeps.md, Many arms, many chances)")
    return warnings
