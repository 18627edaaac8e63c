"""Loss landscape: one way to probe the loss around a model's parameters, for the CLI, the MCP server and
the Python API.

It checks the request (target, checkpoint, grid, budget, limits), resolves the target's file and the
checkpoint against the allow-list when there is one, runs the probe in a child process with the user's
interpreter (diagnostics/landscape/), and draws the plots when asked (analysis/landscape_plot.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Literal

from ..diagnostics.landscape import (
    DEFAULT_BUDGET_S,
    DEFAULT_GRID,
    DEFAULT_POINTS,
    DEFAULT_POWER_ITERATIONS,
    DEFAULT_SPAN,
)
from ..diagnostics.launch import Limits, ProgressCallback
from ..diagnostics.target import parse_target
from ..errors import UsageError
from ..models.landscape import LandscapeReport
from .diagnose import resolve_target
from .paths import AllowedDirs

MAX_POINTS = 401
MAX_GRID = 101
MAX_ITERATIONS = 500


def check_options(points: int, grid: int, span: float, directions: int, power_iterations: int,
                  budget_s: float, timeout: float) -> None:
    if not 5 <= points <= MAX_POINTS:
        raise UsageError(f"points must be between 5 and {MAX_POINTS} (got {points}): the fit needs 5 near the point")
    if not 5 <= grid <= MAX_GRID:
        raise UsageError(f"grid must be between 5 and {MAX_GRID} (got {grid})")
    if not 0 < span <= 10:
        raise UsageError(f"span must be in (0, 10] (got {span}); 1 moves every filter by its own norm")
    if directions not in (1, 2):
        raise UsageError(f"directions must be 1 (a slice) or 2 (a slice each and the 2-D grid), got {directions}")
    if not 1 <= power_iterations <= MAX_ITERATIONS:
        raise UsageError(f"power iterations must be between 1 and {MAX_ITERATIONS} (got {power_iterations})")
    if not 0 < budget_s < timeout:
        raise UsageError(f"the budget ({budget_s:g} s) must be positive and below the timeout ({timeout:g} s), which "
                         "also pays for importing torch and building the spec; raise --timeout or lower --budget")


async def landscape_target(target: str, *, checkpoint: str | None = None, allowed: AllowedDirs | None = None,
                           limits: Limits | None = None, device: str | None = None, seed: int = 0,
                           points: int = DEFAULT_POINTS, grid: int = DEFAULT_GRID, span: float = DEFAULT_SPAN,
                           directions: int = 2, power_iterations: int = DEFAULT_POWER_ITERATIONS,
                           budget_s: float | None = None, mode: Literal["train", "eval"] = "train",
                           cwd: Path | None = None, plot_dir: Path | None = None,
                           on_progress: ProgressCallback | None = None, interpreter_source: str = "",
                           allow_import_side_effects: bool = False) -> LandscapeReport:
    """Probe the loss around the parameters of the spec that TARGET returns (after loading `checkpoint`, a
    state dict read with torch.load(weights_only=True)), in a child process under `limits`.

    With `allowed` (the server's allow-list) the target's file and the checkpoint must lie inside it and the
    child runs in the first allowed directory. The budget defaults to 60 s, or half the timeout when that is
    less. With `plot_dir`, the 1-D and 2-D PNGs are written there."""
    from ..diagnostics.landscape.launch import run_landscape

    parsed = parse_target(target)
    used = limits or Limits()
    if budget_s is None:  # half the timeout at most: the rest pays for importing torch and building the spec
        budget_s = min(DEFAULT_BUDGET_S, used.timeout_s / 2)
    check_options(points, grid, span, directions, power_iterations, budget_s, used.timeout_s)
    if mode not in ("train", "eval"):
        raise UsageError(f"mode must be train or eval, got {mode!r}")
    where, workdir = resolve_target(parsed, allowed, cwd, allow_import_side_effects)
    weights = _checkpoint_path(checkpoint, allowed) if checkpoint else None
    options = {"checkpoint": weights, "device": device, "seed": seed, "points": points, "grid": grid, "span": span,
               "directions": directions, "power_iterations": power_iterations, "budget_s": budget_s, "mode": mode,
               "roots": [str(root) for root in allowed.roots] if allowed is not None else None}
    raw = await run_landscape(f"{where}:{parsed.function}", options, used, workdir, on_progress)
    report = LandscapeReport.model_validate({"target": target, **raw, "checkpoint": checkpoint})
    report.environment["interpreter"] = f"{used.python} ({interpreter_source})" if interpreter_source else used.python
    if plot_dir is not None:
        report.plots = [str(p) for p in write_plots(report, plot_dir)]
    return report


def _checkpoint_path(checkpoint: str, allowed: AllowedDirs | None) -> str:
    path = allowed.check(checkpoint) if allowed is not None else Path(checkpoint).expanduser().resolve()
    if not path.is_file():
        raise UsageError(f"no such checkpoint: {checkpoint}; give the file saved with torch.save(model.state_dict(), "
                         "PATH)")
    return str(path)


def write_plots(report: LandscapeReport, directory: Path) -> list[Path]:
    """The 1-D curves and, with two directions, the 2-D contour, as PNGs (matplotlib needed)."""
    from ..analysis.landscape_plot import write_landscape_plots

    return write_landscape_plots(report, directory)


def plot_images(report: LandscapeReport) -> list[bytes]:
    """The report's plots as PNG bytes, drawn in a temporary folder that is removed again."""
    with tempfile.TemporaryDirectory(prefix="mldebug-landscape-") as tmp:
        return [path.read_bytes() for path in write_plots(report, Path(tmp))]
