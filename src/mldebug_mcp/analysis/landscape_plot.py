"""write_landscape_plots: the 1-D slices and the 2-D contour of a landscape report, as PNGs.

matplotlib is an optional dependency (`pip install "mldebug-mcp[plots]"`), imported only inside the
function so that probing never pulls it in.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..errors import UsageError
from ..models.landscape import LandscapeLine, LandscapeReport

COLOURS = {"random_1": "tab:blue", "random_2": "tab:green", "gradient": "tab:red"}
CONTOUR_LEVELS = 30


def write_landscape_plots(report: LandscapeReport, directory: Path) -> list[Path]:
    """landscape_1d.png (every slice, with its fitted parabola) and, when there is a grid, landscape_2d.png."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError('plots need matplotlib: pip install "mldebug-mcp[plots]"') from exc
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = [_curves(plt, report, directory / "landscape_1d.png")]
    if report.surface is not None:
        written.append(_contour(plt, report, directory / "landscape_2d.png"))
    return written


def _curves(plt, report: LandscapeReport, path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(8, 5))
    finite = [v for line in report.lines for v in line.losses if math.isfinite(v)]
    log_axis = bool(finite) and min(finite) > 0 and max(finite) / min(finite) > 100
    for line in report.lines:
        kept = [(a, v) for a, v in zip(line.alphas, line.losses) if math.isfinite(v) and (v > 0 or not log_axis)]
        colour = COLOURS.get(line.direction, "tab:gray")
        axes.plot([a for a, _ in kept], [v for _, v in kept], "-", color=colour, linewidth=1.2,
                  label=f"{line.direction} (curvature {line.curvature:.3g})")
        fitted = _parabola(line, report.loss)
        if fitted:
            axes.plot(*zip(*fitted), ":", color=colour, linewidth=1)
    axes.axvline(0.0, color="black", linewidth=0.8, linestyle="--")
    if log_axis:
        axes.set_yscale("log")
    axes.set_xlabel("alpha (filter-normalised step; 1 = each filter moved by its own norm)")
    axes.set_ylabel("batch loss (log scale)" if log_axis else "batch loss")
    axes.set_title(f"{report.target}: {report.verdict} (loss {report.loss:.4g})", fontsize=10)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def _parabola(line: LandscapeLine, loss: float) -> list[tuple[float, float]]:
    """The fitted parabola over the inner fifth of the slice (dotted: where the fit claims to hold)."""
    if not (math.isfinite(line.slope) and math.isfinite(line.curvature)) or not line.alphas:
        return []
    reach = max(abs(a) for a in line.alphas) / 5
    steps = [reach * (i / 10 - 1) for i in range(21)]
    return [(a, loss + line.slope * a + 0.5 * line.curvature * a * a) for a in steps]


def _contour(plt, report: LandscapeReport, path: Path) -> Path:
    surface = report.surface
    assert surface is not None
    values = [[v if math.isfinite(v) else math.nan for v in row] for row in surface.losses]
    finite = [v for row in values for v in row if math.isfinite(v)]
    figure, axes = plt.subplots(figsize=(6.5, 5.5))
    if finite:
        low, high = min(finite), max(finite)
        log_levels = low > 0 and high / low > 100
        if log_levels:
            levels = [low * (high / low) ** (i / CONTOUR_LEVELS) for i in range(CONTOUR_LEVELS + 1)]
        else:
            levels = CONTOUR_LEVELS if high > low else 1
        filled = axes.contourf(surface.alphas, surface.betas, values, levels=levels, cmap="viridis")
        if high > low:
            axes.contour(surface.alphas, surface.betas, values, levels=filled.levels, colors="white",
                         linewidths=0.3, alpha=0.5)
        figure.colorbar(filled, ax=axes, label="batch loss" + (" (log-spaced levels)" if log_levels else ""))
    axes.plot([0.0], [0.0], marker="*", color="red", markersize=12, label="current parameters")
    axes.set_xlabel(f"{surface.x} (filter-normalised)")
    axes.set_ylabel(f"{surface.y} (filter-normalised)")
    axes.set_title(f"{report.verdict}: lambda_max {_n(report.sharpness.lambda_max)}, "
                   f"lambda_min {_n(report.sharpness.lambda_min)}", fontsize=10)
    axes.legend(fontsize=8, loc="upper right")
    axes.set_aspect("equal")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def _n(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"
