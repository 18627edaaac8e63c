"""Text rendering of a LandscapeReport: the verdict and why, the sharpness figures, each slice, the notes."""

from __future__ import annotations

import math

from ..models.landscape import LandscapeReport
from .text import wrapped


def landscape_text(report: LandscapeReport) -> str:
    checkpoint = f" with {report.checkpoint}" if report.checkpoint else ""
    header = (f"landscape {report.target}{checkpoint}  ({report.device}, {report.mode} mode, seed {report.seed}, "
              f"{report.seconds:.1f} s of {report.budget_s:g} s)")
    figures = (f"  loss {report.loss:.6g}   gradient norm {report.gradient_norm:.3g}   "
               f"{report.parameters} parameters ({report.perturbed} moved by the random directions)")
    lines = [header, figures, ""]
    lines += wrapped(f"{report.verdict.upper()}: {report.reason}", "")
    s = report.sharpness
    lines.append("")
    if s.lambda_max is not None:
        ratio = f", lambda_min/lambda_max {s.lambda_min / s.lambda_max:.3g}" if s.lambda_min is not None and s.lambda_max else ""
        state = "converged" if s.converged else "not converged"
        lines.append(f"  Hessian   lambda_max {s.lambda_max:.4g}, lambda_min {_n(s.lambda_min)}{ratio} "
                     f"({s.iterations} Hessian-vector products, {state})")
    else:
        lines += wrapped(f"no eigenvalues: {s.error}", "  Hessian   ")
    lines.append(f"  {'slice':<10} {'slope':>10} {'curvature':>10} {'d.H.d':>10} {'d.H.d/|d|^2':>12} "
                 f"{'vertex':>8} {'max |dL|':>10}")
    for line in report.lines:
        lines.append(f"  {line.direction:<10} {_n(line.slope):>10} {_n(line.curvature):>10} "
                     f"{_n(line.curvature_hvp):>10} {_n(line.rayleigh):>12} {_n(line.vertex):>8} "
                     f"{_n(line.loss_range):>10}")
    if report.surface is not None:
        lines.append(f"  2-D grid  {report.surface.size}x{report.surface.size} over {report.surface.x} x "
                     f"{report.surface.y}")
    lines.append("")
    lines += wrapped("thresholds: " + ", ".join(f"{k} {v:g}" for k, v in report.thresholds.items())
                     + "; alpha = 1 moves every filter by its own norm (Li et al. 2018)", "")
    for note in report.notes:
        lines += wrapped(note, "note: ")
    for plot in report.plots:
        lines.append(f"plot: {plot}")
    return "\n".join(lines)


def _n(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}" if math.isfinite(value) else str(value)
