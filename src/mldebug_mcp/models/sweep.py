"""Sweeps: runs grouped into arms by their settings, each arm compared with a baseline across seeds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .base import Model

Verdict = Literal["better", "worse", "within_noise", "undetermined"]
Method = Literal["paired", "unpaired", "none"]


@dataclass(kw_only=True)
class SweepRun(Model):
    """One run of an arm: its seed and its metric value."""

    run: str
    """Where the run came from: 'row N' of a table, or the run's folder or file."""
    seed: str | None
    """The run's seed as written; null when the table has no seed column."""
    value: float | None
    """The metric (its last or best value for a run read from a log); null when missing or NaN: a crashed run."""


@dataclass(kw_only=True)
class SweepArm(Model):
    """One compared setting: the runs that share its settings, and their seed-to-seed spread."""

    label: str
    """The arm's name: the value of the compared setting, or 'col=value, ...' when several settings vary."""
    settings: dict[str, str]
    """The settings that tell this arm apart from the others (config column -> value)."""
    runs: list[SweepRun]
    """Every run of the arm, crashed ones included."""
    n: int
    """Runs with a usable metric value."""
    mean: float | None
    """Mean of the metric over those runs."""
    sd: float | None
    """Seed-to-seed standard deviation (ddof=1); null with fewer than two runs."""
    min: float | None
    """Smallest value."""
    max: float | None
    """Largest value."""
    q10: float | None
    """10th percentile (linear interpolation), as in refs/sweeps.md."""
    q90: float | None
    """90th percentile."""
    mean_z: float | None = None
    """Mean over seeds of the arm's z-score among the arms run on that seed (population std per seed)."""
    sd_z: float | None = None
    """Standard deviation of those z-scores across seeds (ddof=1)."""
    t_z: float | None = None
    """Cross-seed t of the z-scores: mean_z / (sd_z / sqrt(seeds)); null with fewer than 3 arms or 2 seeds."""


@dataclass(kw_only=True)
class SeedDifference(Model):
    """The arm minus the baseline on one shared seed."""

    seed: str
    arm: float
    baseline: float
    difference: float


@dataclass(kw_only=True)
class SweepComparison(Model):
    """One arm against the baseline: the effect, its uncertainty, and the verdict."""

    arm: str
    """Label of the arm compared."""
    baseline: str
    """Label of the baseline arm."""
    changed: list[str]
    """Settings whose value differs between the two arms; more than one means the effect cannot be attributed."""
    method: Method
    """paired: differences on shared seeds (paired t); unpaired: Welch's t (seeds not shared); none: too few runs."""
    shared_seeds: list[str] = field(default_factory=list)
    """Seeds both arms ran, the ones the paired view uses."""
    differences: list[SeedDifference] = field(default_factory=list)
    """Per shared seed, arm minus baseline (paired method only)."""
    mean_difference: float | None = None
    """Mean of arm minus baseline (paired: of the per-seed differences); in the metric's units."""
    sd_difference: float | None = None
    """Standard deviation of the per-seed differences (paired only)."""
    wins: int | None = None
    """Shared seeds on which the arm did better than the baseline (in the metric's direction)."""
    t: float | None = None
    """Paired t (or Welch's t); null when every seed gave the same difference or too few runs."""
    df: float | None = None
    """Degrees of freedom of t."""
    p: float | None = None
    """Two-sided p-value of t (Student's t distribution)."""
    p_adjusted: float | None = None
    """p after the multiple-comparison correction named in the report (Holm-Bonferroni over all comparisons)."""
    ci_low: float | None = None
    """Lower end of the bootstrap confidence interval of mean_difference."""
    ci_high: float | None = None
    """Upper end of the bootstrap confidence interval of mean_difference."""
    effect_over_spread: float | None = None
    """mean_difference divided by the baseline's seed-to-seed standard deviation."""
    verdict: Verdict = "undetermined"
    """better / worse: an effect larger than seed noise (p_adjusted < alpha); within_noise: not; undetermined: too few runs."""
    summary: str = ""
    """One sentence with the numbers behind the verdict."""
    notes: list[str] = field(default_factory=list)
    """What to distrust in this comparison (one seed carrying the gain, seeds left out, confounded settings)."""


@dataclass(kw_only=True)
class SweepReport(Model):
    """What the sweep analysis returns: the arms, each compared with the baseline, and the warnings."""

    source: str
    """The runs table or folder read."""
    format: str
    """csv, tsv, jsonl, json, tfevents (a folder of runs) or trainer_state (a folder of trainer_state.json)."""
    metric: str
    """The metric compared."""
    higher_is_better: bool
    """Direction of the metric; guessed from its name unless given."""
    seed_column: str | None
    """The column holding the seed; null when none was found (then no pairing)."""
    factor: list[str]
    """The settings that define the arms (those that vary across runs, or the one asked for)."""
    baseline: str
    """Label of the arm every other arm is compared with."""
    arms: list[SweepArm]
    """Every arm, the baseline first."""
    comparisons: list[SweepComparison]
    """One per arm other than the baseline, in arm order."""
    alpha: float = 0.05
    """Family-wise error rate of the verdicts."""
    correction: str = ""
    """How the p-values were corrected for the number of comparisons (Holm-Bonferroni) and over how many."""
    ci_level: float = 0.95
    """Coverage the bootstrap intervals aim at."""
    bootstrap_resamples: int = 0
    """Bootstrap resamples per interval (seeded: the same input gives the same interval)."""
    metric_candidates: list[str] = field(default_factory=list)
    """Every column (or series) that could be the metric; pass one as `metric` to compare another."""
    take: str | None = None
    """For runs read from logs: 'last' or 'best' value of the metric's series; null for a table."""
    warnings: list[str] = field(default_factory=list)
    """Problems with the design that limit what the numbers can say (seeds not shared, confounds, few seeds)."""
    notes: list[str] = field(default_factory=list)
    """How the table was read: columns guessed, rows skipped, tracker columns ignored."""
    plot: str | None = None
    """Path of the PNG written, or 'attached', or null."""
