"""write_curve_plot: training and validation loss as a PNG, with the findings marked.

matplotlib is an optional dependency (`pip install "mldebug-mcp[plots]"`), imported only inside
the function so that reading and classifying curves never pulls it in.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..errors import UsageError
from ..models.curves import CurveReport
from .curve_io import LossLog

MAX_DRAWN = 6000  # more points than a 9-inch figure has pixels across
SPIKE_COLOURS = {"spike_fast_recovery": "tab:olive", "spike_slow_recovery": "tab:orange",
                 "spike_no_recovery": "tab:red", None: "tab:gray"}


def write_curve_plot(log: LossLog, report: CurveReport, path: Path) -> Path:
    """Draw the report's training and validation series on a log y axis; return the PNG path.

    A log axis cannot show values <= 0 or NaN, so those points are left out of the lines, and the
    NaN onset and the zero-loss region are drawn as vertical markers instead. Negative losses fall
    back to a linear axis."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError('plots need matplotlib: pip install "mldebug-mcp[plots]"') from exc
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axes = plt.subplots(figsize=(9, 5))
    drawn = {name: thinned(*log.columns(name)) for name in (report.loss_series, report.val_series) if name}
    values = [v for points in drawn.values() for _, v in points if math.isfinite(v)]
    log_axis = any(v > 0 for v in values) and not any(v < 0 for v in values)
    for name, points in drawn.items():
        kept = [(s, v) for s, v in points if math.isfinite(v) and (v > 0 or not log_axis)]
        style = "-" if name == report.loss_series else "o-"
        axes.plot([s for s, _ in kept], [v for _, v in kept], style, label=name, linewidth=1, markersize=3)
    if log_axis:
        axes.set_yscale("log")
    _mark_findings(axes, report, drawn.get(report.loss_series, []))
    for spike in report.spikes:
        axes.plot([spike.peak_step], [spike.peak], "v", color=SPIKE_COLOURS[spike.kind], markersize=8)
    if report.metric_series:  # on its own axis: a flat metric beside a falling loss is the picture to see
        metric = [(s, v) for s, v in thinned(*log.columns(report.metric_series)) if math.isfinite(v)]
        twin = axes.twinx()
        twin.plot([s for s, _ in metric], [v for _, v in metric], "s--", color="tab:purple", linewidth=1,
                  markersize=3, label=report.metric_series)
        twin.set_ylabel(report.metric_series)
        twin.set_ylim(*_metric_range([v for _, v in metric]))
        twin.legend(fontsize=8, loc="center right")
    title = ", ".join(report.observations) or "no observation"
    axes.set_title(f"{Path(report.source).name}: {title}", fontsize=10)
    axes.set_xlabel("step")
    axes.set_ylabel("loss (log scale)" if log_axis else "loss")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def _metric_range(values: list[float]) -> tuple[float, float]:
    """The metric's axis: its natural scale (0-1 or 0-100) when it has one, else its range widened to a
    tenth of its size, so that noise on a flat metric is drawn as the small thing it is."""
    if not values:
        return 0.0, 1.0
    low, high = min(values), max(values)
    if low >= 0 and high <= 1:
        return 0.0, 1.0
    if low >= 0 and high <= 100:
        return 0.0, 100.0
    middle, span = (low + high) / 2, max(high - low, 0.1 * abs((low + high) / 2), 1e-12)
    return middle - span, middle + span


def thinned(steps, values, most: int = MAX_DRAWN) -> list[tuple[int | float, float]]:
    """At most about `most` points to draw: the first, lowest and highest value of each of most/3
    equal runs of points, so spikes and dips survive; a 10-million-row log draws as fast as a short one.
    A non-finite value is always kept (the plot marks NaN onsets)."""
    n = len(values)
    if n <= most:
        return list(zip(steps, values))
    size = max(1, (3 * n) // most)
    kept: list[tuple[int | float, float]] = []
    for start in range(0, n, size):
        run = range(start, min(start + size, n))
        low = min(run, key=values.__getitem__)
        high = max(run, key=values.__getitem__)
        odd = [i for i in run if not math.isfinite(values[i])][:1]
        kept += [(steps[i], values[i]) for i in sorted({start, low, high, *odd})]
    return kept


def _mark_findings(axes, report: CurveReport, loss: list[tuple[int | float, float]]) -> None:
    last_zero = max((s for s, v in loss if abs(v) <= 1e-12), default=None)
    for finding in report.findings:
        if finding.step is None:
            continue
        if finding.observation == "nan":
            axes.axvline(finding.step, color="tab:red", linestyle="--", linewidth=1.2)
            axes.annotate(f"first NaN/Inf: step {finding.step}", (finding.step, 0.95),
                          xycoords=("data", "axes fraction"), color="tab:red", fontsize=8, ha="right")
        elif finding.observation == "loss_zero" and last_zero is not None:
            axes.axvspan(finding.step, last_zero, color="tab:purple", alpha=0.15)
            axes.annotate("loss == 0", (finding.step, 0.05), xycoords=("data", "axes fraction"),
                          color="tab:purple", fontsize=8)
        elif finding.observation in ("explodes", "train_val_gap", "plateau", "plateau_at_chance"):
            axes.axvline(finding.step, color="tab:gray", linestyle=":", linewidth=1)
            axes.annotate(finding.observation, (finding.step, 0.9), xycoords=("data", "axes fraction"),
                          color="tab:gray", fontsize=8, rotation=90, va="top")
