"""Runs -> arms: the settings that vary define the arms; one arm is the baseline; confounds are named.

An arm is every run sharing the values of the factor columns: the ones asked for, or else every
setting that takes more than one value across the runs. A setting that varies inside an arm (only
possible when the factor is given) or that differs between an arm and the baseline besides the
factor is a confound: the comparison credits the pair of changes, not one (Sculley's CACE, in
refs/sweeps.md, Confound warnings).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from .sweep_columns import Run

MAX_ARMS = 500
BASELINE_NAMES = ("baseline", "base", "control", "default", "reference", "ref")


@dataclass
class Arm:
    label: str
    settings: dict[str, str]
    runs: list[Run]


def setting_columns(runs: list[Run]) -> list[str]:
    return list(dict.fromkeys(c for run in runs for c in run.settings))


def varying(runs: list[Run], columns: list[str]) -> list[str]:
    return [c for c in columns if len({run.settings.get(c, "") for run in runs}) > 1]


def group_arms(runs: list[Run], factor: list[str] | None) -> tuple[list[str], list[Arm], list[str]]:
    """(factor columns, arms in order of first appearance, warnings about settings varying inside an arm)."""
    columns = setting_columns(runs)
    moving = varying(runs, columns)
    keys = list(factor) if factor else moving
    if not keys:
        raise UsageError(
            "every run has the same settings, so there are no arms to compare"
            + (f" (settings read: {', '.join(columns)})" if columns else " (no setting column found)")
            + ". A runs table needs a column telling the compared settings apart (arm, lr, ...); pass it as "
            "--factor COLUMN if it was read as a metric, or name folder runs key=value (lr=0.1,seed=1).")
    grouped: dict[tuple[str, ...], list[Run]] = {}
    for run in runs:
        grouped.setdefault(tuple(run.settings.get(c, "") for c in keys), []).append(run)
    if len(grouped) > MAX_ARMS:
        raise UsageError(f"{len(grouped):,} distinct arms from the settings {', '.join(keys)}, more than the "
                         f"{MAX_ARMS} compared at once: pass --factor COLUMN to compare along one setting")
    arms = [Arm(_label(keys, values), dict(zip(keys, values)), members) for values, members in grouped.items()]
    warnings = []
    for arm in arms:
        inside = [c for c in varying(arm.runs, columns) if c not in keys]
        if inside:
            shown = "; ".join(f"{c} takes {', '.join(sorted({r.settings.get(c, '') for r in arm.runs})[:5])}"
                              for c in inside[:4])
            warnings.append(f"arm {arm.label!r} mixes settings besides {', '.join(keys)} ({shown}): its runs differ "
                            "in more than the factor, so its effect cannot be credited to the factor alone")
    return keys, arms, warnings


def choose_baseline(arms: list[Arm], wanted: str | None) -> tuple[Arm, str]:
    """The baseline arm and a note on how it was chosen: the one asked for (its label, or col=value pairs),
    else one named like a baseline, else the first in the table."""
    if wanted is not None:
        return _find(arms, wanted), f"baseline: {wanted!r}, as asked"
    for arm in arms:
        if any(v.strip().lower() in BASELINE_NAMES for v in arm.settings.values()):
            return arm, f"baseline: {arm.label!r} (named like one; pass --baseline ARM to compare against another)"
    return arms[0], (f"baseline: {arms[0].label!r}, the first arm in the table (pass --baseline ARM to compare "
                     "against another)")


def changed_settings(arm: Arm, baseline: Arm, columns: list[str]) -> list[str]:
    """The settings whose values differ between the runs of two arms."""
    return [c for c in columns
            if {r.settings.get(c, "") for r in arm.runs} != {r.settings.get(c, "") for r in baseline.runs}]


def _label(keys: list[str], values: tuple[str, ...]) -> str:
    if len(keys) == 1:
        return values[0] or "(empty)"
    return ", ".join(f"{k}={v}" for k, v in zip(keys, values))


def _find(arms: list[Arm], wanted: str) -> Arm:
    exact = [arm for arm in arms if arm.label == wanted.strip()]
    if exact:
        return exact[0]
    pairs = dict(part.split("=", 1) for part in wanted.split(",") if "=" in part)
    pairs = {k.strip(): v.strip() for k, v in pairs.items()}
    matches = [arm for arm in arms if pairs and all(arm.settings.get(k) == v for k, v in pairs.items())]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(repr(arm.label) for arm in arms[:20])
    problem = f"{len(matches)} arms match" if matches else "no arm matches"
    raise UsageError(f"baseline {wanted!r}: {problem}. Arms: {listed}. Pass one label as written, or col=value "
                     "pairs that pick exactly one arm.")
