"""Loss curves: read a log, classify its shape, optionally draw it. The work happens in analysis/."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..analysis.curve import analyze_curve
from ..analysis.curve_io import read_curve
from ..models.curves import CurveReport
from .paths import AllowedDirs


def curve_report(path: str | Path, loss: str | None = None, val: str | None = None, num_classes: int | None = None,
                 plot: Path | None = None, *, run: str | None = None, allowed: AllowedDirs | None = None) -> CurveReport:
    """The classified curve of a CSV, JSONL/JSON or TensorBoard log; with `plot`, a PNG written there.

    A folder of event files holding several runs is read one run at a time: `run` (its folder
    relative to `path`), or the most recent; the report says which and lists the others.

    With `allowed` (the server's allow-list) the log must lie inside it, and so must every file the
    reader opens: the real path of each open file is checked again, so a symlink inside a folder of
    event files that leads outside is skipped with a note, never read."""
    target = allowed.check(str(path)) if allowed is not None else Path(path)
    log = read_curve(target, roots=allowed.roots if allowed is not None else None, run=run)
    report = analyze_curve(log, loss=loss, val=val, num_classes=num_classes)
    if plot is not None:
        from ..analysis.curve_plot import write_curve_plot

        report.plot = str(write_curve_plot(log, report, plot))
    return report


def curve_with_image(path: str, loss: str | None = None, val: str | None = None, num_classes: int | None = None,
                     *, run: str | None = None, allowed: AllowedDirs | None = None) -> tuple[CurveReport, bytes]:
    """The report and its plot as PNG bytes (drawn in a temporary folder, removed again)."""
    with tempfile.TemporaryDirectory(prefix="mldebug-curve-") as tmp:
        report = curve_report(path, loss, val, num_classes, Path(tmp) / "curve.png", run=run, allowed=allowed)
        image = Path(report.plot or "").read_bytes()
    report.plot = "attached"
    return report, image
