"""Service for loss curves: read a log, classify its shape, optionally draw it. Shared by the CLI and
the MCP server; the work happens in analysis/."""

from __future__ import annotations

from pathlib import Path

from ..analysis.curve import analyze_curve
from ..analysis.curve_io import read_curve
from ..models import CurveReport


def curve_report(path: Path, loss: str | None = None, val: str | None = None, num_classes: int | None = None,
                 plot: Path | None = None) -> CurveReport:
    """The classified curve of a CSV, JSONL/JSON or TensorBoard log; with `plot`, a PNG written there."""
    log = read_curve(path)
    report = analyze_curve(log, loss=loss, val=val, num_classes=num_classes)
    if plot is not None:
        from ..analysis.curve_plot import write_curve_plot

        report.plot = str(write_curve_plot(log, report, plot))
    return report


def triage_hint(report: CurveReport) -> str:
    """How to feed the curve's observations to triage."""
    if not report.observations:
        return "No observation to pass on; describe the run to triage in your own words instead."
    keys = ", ".join(repr(k) for k in report.observations)
    return f"Next: triage with observations=[{keys}] and your description (CLI: mldebug-mcp curve FILE --triage)."
