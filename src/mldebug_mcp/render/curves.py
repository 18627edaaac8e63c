"""Text rendering of a CurveReport: the series analysed, one line per observation, the evidence."""

from __future__ import annotations

import math

from ..models.curves import CurveReport, CurveSeries
from .text import wrapped

MAX_SPIKES = 10


def curve_text(report: CurveReport) -> str:
    lines = [f"loss curve {report.source}  ({report.format}, {len(report.series)} series)"]
    if report.other_runs:
        lines.append(f"  run         {report.run} (one of {len(report.other_runs) + 1}; others: "
                     f"{', '.join(report.other_runs)})")
    by_name = {s.name: s for s in report.series}
    for label, name in (("training", report.loss_series), ("validation", report.val_series)):
        if name:
            lines.append(f"  {label:<10}  {_series_line(by_name[name])}")
    if report.num_classes:
        lines.append(f"  classes     {report.num_classes}")
    lines.append("")
    if report.observations:
        lines.append("observations: " + ", ".join(report.observations))
    elif not any("too" in note for note in report.notes):
        lines.append("observations: none recognised (the loss does not fall, but no known pattern matches)")
    for finding in report.findings:
        at = f"step {finding.step}" if finding.step is not None else "whole run"
        lines.append(f"  {finding.observation:<20} {at}")
        lines += wrapped(finding.summary, "      ")
        lines += wrapped("why it matters: " + finding.meaning, "      ")
    if report.spikes:
        lines += ["", f"spikes ({len(report.spikes)}):", "  step        peak        x median  recovery"]
        for spike in report.spikes[:MAX_SPIKES]:
            height = f"{spike.height:.1f}x" if spike.height is not None else "-"
            steps = spike.recovery_steps
            back = "never" if steps is None else f"{steps} step{'' if steps == 1 else 's'}"
            kind = spike.kind or "log ends too soon to tell"
            lines.append(f"  {spike.step!s:<11} {_number(spike.peak):<11} {height:<9} {back}  ({kind})")
        if len(report.spikes) > MAX_SPIKES:
            lines.append(f"  ... {len(report.spikes) - MAX_SPIKES} more")
    if report.notes:
        lines.append("")
        for note in report.notes:
            lines += wrapped(note, "note: ")
    if report.plot:
        lines.append(f"plot: {report.plot}")
    return "\n".join(lines)


def _series_line(series: CurveSeries) -> str:
    low = f", min {_number(series.min)}" if series.min is not None else ""
    bad = f", {series.non_finite} NaN/Inf" if series.non_finite else ""
    return (f"{series.name}: {series.points} points, steps {series.first_step}-{series.last_step}, "
            f"{_number(series.first)} -> {_number(series.last)}{low}{bad}")


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isnan(value):
        return "NaN"
    return f"{value:.4g}" if math.isfinite(value) else ("Inf" if value > 0 else "-Inf")


def triage_hint(report: CurveReport) -> str:
    """How to feed the curve's observations to triage."""
    if not report.observations:
        return "No observation to pass on; describe the run to triage in your own words instead."
    keys = ", ".join(repr(k) for k in report.observations)
    return f"Next: triage with observations=[{keys}] and your description (CLI: mldebug-mcp curve FILE --triage)."
