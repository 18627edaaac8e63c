"""Loss curves: read a log, classify its shape, optionally draw it. The work happens in analysis/."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..analysis.curve import analyze_curve
from ..analysis.curve_io import LossLog, read_curve
from ..models.curves import CurveReport
from .paths import AllowedDirs


def curve_report(path: str | Path, loss: str | None = None, val: str | None = None, num_classes: int | None = None,
                 plot: Path | None = None, *, run: str | None = None, metric: str | None = None,
                 allowed: AllowedDirs | None = None) -> CurveReport:
    """The classified curve of a CSV, JSONL/JSON or TensorBoard log; with `plot`, a PNG written there.

    A folder of event files holding several runs is read one run at a time: `run` (its folder
    relative to `path`), or the most recent; the report says which and lists the others.

    With `allowed` (the server's allow-list) the log must lie inside it, and so must every file the
    reader opens: the real path of each open file is checked again, so a symlink inside a folder of
    event files that leads outside is skipped with a note, never read."""
    target = allowed.check(str(path)) if allowed is not None else Path(path)
    log = read_curve(target, roots=allowed.roots if allowed is not None else None, run=run)
    report = analyze_curve(log, loss=loss, val=val, num_classes=num_classes, metric=metric)
    if plot is not None:
        from ..analysis.curve_plot import write_curve_plot

        report.plot = str(write_curve_plot(log, report, plot))
    return report


def curve_with_image(path: str, loss: str | None = None, val: str | None = None, num_classes: int | None = None,
                     *, run: str | None = None, metric: str | None = None,
                     allowed: AllowedDirs | None = None) -> tuple[CurveReport, bytes]:
    """The report and its plot as PNG bytes (drawn in a temporary folder, removed again)."""
    with tempfile.TemporaryDirectory(prefix="mldebug-curve-") as tmp:
        report = curve_report(path, loss, val, num_classes, Path(tmp) / "curve.png", run=run, metric=metric,
                              allowed=allowed)
        image = Path(report.plot or "").read_bytes()
    report.plot = "attached"
    return report, image


def curve_from_records(records: Sequence[Mapping[str, Any]], source: str,
                       num_classes: int | None = None) -> CurveReport:
    """The classified curve of logged records held in memory (HF's state.log_history: {"loss": ...,
    "step": ...} dicts): every numeric field but the step is a series, the record's index standing in
    for a missing step. UsageError when no series looks like a loss."""
    series: dict[str, list[tuple[int | float, float]]] = {}
    for index, record in enumerate(records):
        step = next((record[k] for k in STEP_KEYS if _number(record.get(k)) is not None), index)
        for name, value in record.items():
            number = _number(value)
            if number is not None and name not in STEP_KEYS:
                series.setdefault(name, []).append((step, number))
    return analyze_curve(LossLog(series=series, source=source, format="trainer_state"), num_classes=num_classes)


STEP_KEYS = ("step", "global_step")


def _number(value: Any) -> float | None:
    """Numbers only (NaN and Inf kept: a NaN loss is a finding); bools, strings and None are not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:  # an int beyond the float range
        return math.inf if value > 0 else -math.inf
