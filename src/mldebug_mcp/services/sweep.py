"""Sweeps: read a runs table or a folder of runs, compare every arm with a baseline across seeds,
optionally draw it. The work happens in analysis/sweep_*."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ..analysis.sweep_columns import runs_of_table
from ..analysis.sweep_folder import read_runs_folder
from ..analysis.sweep_report import analyze_sweep
from ..analysis.sweep_table import read_runs_table
from ..errors import UsageError
from ..models.sweep import SweepReport
from .paths import AllowedDirs

TAKES = ("last", "best")


def sweep_report(path: str | Path, metric: str | None = None, *, seed_column: str | None = None,
                 factor: str | list[str] | None = None, baseline: str | None = None, take: str = "last",
                 higher_is_better: bool | None = None, alpha: float = 0.05, plot: Path | None = None,
                 allowed: AllowedDirs | None = None) -> SweepReport:
    """The sweep analysis of a runs table (CSV/TSV, JSON lines or a JSON array; W&B and MLflow exports)
    or of a folder of runs (TensorBoard event files or HF trainer_state.json, one sub-folder per run,
    settings in its name as key=value; `take` the last or best value of the metric's series).

    With `allowed` (the server's allow-list) the path must lie inside it, and so must every file read."""
    if take not in TAKES:
        raise UsageError(f"take must be one of {', '.join(TAKES)}, not {take!r}")
    if not 0.0 < alpha < 0.5:
        raise UsageError(f"alpha must lie between 0 and 0.5 (usually 0.05), not {alpha}")
    factors = [f.strip() for f in factor.split(",") if f.strip()] if isinstance(factor, str) else factor
    target = allowed.check(str(path)) if allowed is not None else Path(path)
    roots = allowed.roots if allowed is not None else None
    folder = _is_folder(target)
    if folder:
        raw = read_runs_folder(target, take, higher_is_better, roots, metric)
    else:
        raw = read_runs_table(target, roots)
    table = runs_of_table(raw, metric, seed_column, factors or None, higher_is_better)
    table.take = take if folder else None
    report = analyze_sweep(table, factors or None, baseline, alpha)
    if plot is not None:
        from ..analysis.sweep_plot import write_sweep_plot

        report.plot = str(write_sweep_plot(report, plot))
    return report


def sweep_with_image(path: str, metric: str | None = None, **options) -> tuple[SweepReport, bytes]:
    """The report and its plot as PNG bytes (drawn in a temporary folder, removed again)."""
    with tempfile.TemporaryDirectory(prefix="mldebug-sweep-") as tmp:
        report = sweep_report(path, metric, plot=Path(tmp) / "sweep.png", **options)
        image = Path(report.plot or "").read_bytes()
    report.plot = "attached"
    return report, image


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        raise UsageError(f"{path}: no such file or folder. Pass a runs table (CSV or JSON lines, one row per run) "
                         "or a folder of runs.") from None
