"""Diagnose: one way to run the runtime checks, for the CLI, the MCP server, the demo and the Python API.

It checks the request (target, limits, check ids, steps), resolves the target's file against the
allow-list when there is one, runs the checks in a child process with the user's interpreter, and
writes plots when asked. The child and its checks live in diagnostics/."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from ..diagnostics.import_guard import refuse_side_effects
from ..diagnostics.launch import Limits, ProgressCallback, run_in_subprocess
from ..diagnostics.target import HINT, parse_target
from ..errors import UsageError
from ..models.diagnose import DiagnosticReport
from .interpreter_search import Interpreter, find_python
from .interpreters import module_inside
from .paths import AllowedDirs

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MEMORY_MB = 8192
DEFAULT_STEPS = 200
MAX_NPROC = 64  # ranks on one machine; each is a process that imports torch


def check_ids() -> tuple[str, ...]:
    from ..diagnostics.checks import CHECK_IDS

    return CHECK_IDS


def limits(timeout_s: float = DEFAULT_TIMEOUT_S, memory_mb: int = DEFAULT_MEMORY_MB,
           python: str | None = None) -> Limits:
    """The child's limits; the interpreter defaults to the one running this code."""
    if not timeout_s > 0 or not memory_mb > 0:
        raise UsageError("the timeout and the memory limit must be positive (--timeout, --memory-mb)")
    return Limits(timeout_s=timeout_s, memory_mb=memory_mb, python=python or sys.executable)


def distributed_check_ids() -> tuple[str, ...]:
    from ..diagnostics.distributed import CHECK_IDS

    return CHECK_IDS


def _check_options(steps: int, checks: list[str] | None, nproc: int = 1) -> None:
    if steps < 10:
        raise UsageError(f"steps must be at least 10 (got {steps}); the overfit check needs room to fall")
    if not 1 <= nproc <= MAX_NPROC:
        raise UsageError(f"nproc must be between 1 and {MAX_NPROC} (got {nproc})")
    known = distributed_check_ids() if nproc > 1 else check_ids()
    unknown = sorted(set(checks or ()) - set(known))
    if unknown:
        kind = f"with --nproc {nproc} (the distributed checks)" if nproc > 1 else "in one process"
        raise UsageError(f"unknown check(s) {unknown} {kind}; choose from {', '.join(known)}")


def interpreter_for(requested: str | None, folders: list[Path], configured: str | None = None) -> Interpreter:
    """The interpreter a run uses: the one asked for, else the project's first with torch (see
    interpreter_search), which the report then names."""
    if requested:
        return Interpreter(requested, "given")
    return find_python(folders, configured)


async def diagnose_target(target: str, *, allowed: AllowedDirs | None = None, limits: Limits | None = None,
                          device: str | None = None, steps: int = DEFAULT_STEPS, seed: int = 0,
                          checks: list[str] | None = None, cwd: Path | None = None, plot_dir: Path | None = None,
                          on_progress: ProgressCallback | None = None,
                          interpreter_source: str = "", allow_import_side_effects: bool = False,
                          nproc: int = 1) -> DiagnosticReport:
    """Diagnose the spec that TARGET returns, in a child process under `limits`.

    With `allowed` (the server's allow-list) a file target, or the file of a module target, must lie inside
    it and the child runs in the first allowed directory; without, the target is taken as given and the
    child runs in `cwd` or here.
    With `plot_dir`, PNG plots are written there and listed in the report.
    A file that would run more than definitions when imported (a training loop outside the main guard) is
    refused before any process starts, unless `allow_import_side_effects`.
    With `nproc` > 1, torchrun starts that many ranks (gloo on CPU, nccl on CUDA) and the distributed checks
    run instead, under the same limits for all ranks together (diagnostics/distributed/)."""
    parsed = parse_target(target)
    _check_options(steps, checks, nproc)
    where, workdir = resolve_target(parsed, allowed, cwd, allow_import_side_effects)
    options = {"device": device, "steps": steps, "seed": seed, "only": checks,
               "roots": [str(root) for root in allowed.roots] if allowed is not None else None}
    if nproc > 1:
        from ..diagnostics.distributed.launch import run_ranks

        raw = await run_ranks(f"{where}:{parsed.function}", options, limits or Limits(), workdir, nproc, on_progress)
    else:
        raw = await run_in_subprocess(f"{where}:{parsed.function}", options, limits or Limits(), workdir, on_progress)
    report = DiagnosticReport.model_validate({"target": target, **raw})
    used = (limits or Limits()).python
    report.environment["interpreter"] = f"{used} ({interpreter_source})" if interpreter_source else used
    if plot_dir is not None:
        report.plots = [str(p) for p in write_plots(report, plot_dir)]
    return report


def resolve_target(parsed, allowed: AllowedDirs | None, cwd: Path | None,
                   allow_import_side_effects: bool) -> tuple[str, Path]:
    """The target's file (checked against the allow-list) or module, and the folder the child runs in; a file
    that would run more than definitions when imported is refused unless `allow_import_side_effects`.
    Shared by diagnose and the landscape probe."""
    where = parsed.where
    workdir = cwd or (allowed.roots[0] if allowed is not None else Path.cwd())
    if parsed.is_file:
        path = allowed.check(where) if allowed is not None else Path(where).expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"no such file: {where}; {HINT}")
        where = str(path)
    elif allowed is not None:
        module_inside(where, allowed, workdir)
    if not allow_import_side_effects:
        _refuse_import_side_effects(where, parsed.is_file, workdir, allowed)
    return where, workdir


def _refuse_import_side_effects(where: str, is_file: bool, workdir: Path, allowed: AllowedDirs | None) -> None:
    """Read (never import) the file the child would import: a file target, or a module target's own .py in
    the working folder (a module found elsewhere, an installed package, is not read)."""
    path = Path(where) if is_file else workdir.joinpath(*where.split(".")).with_suffix(".py")
    if path.is_file():
        refuse_side_effects(path, allowed.roots if allowed is not None else None)


def write_plots(report: DiagnosticReport, directory: Path) -> list[Path]:
    """One PNG per check with a series (matplotlib needed)."""
    from ..diagnostics.plots import write_plots as draw

    return draw(report, directory)


def plot_images(report: DiagnosticReport) -> list[bytes]:
    """The report's plots as PNG bytes, written to a temporary folder that is removed again."""
    with tempfile.TemporaryDirectory(prefix="mldebug-plots-") as tmp:
        return [path.read_bytes() for path in write_plots(report, Path(tmp))]


def diagnose(spec: Any = None, *, seed: int = 0, steps: int = DEFAULT_STEPS, device: str | None = None,
             checks: list[str] | None = None, **fields: Any) -> DiagnosticReport:
    """Diagnose live objects in this process (for notebooks): a DebugSpec, a dict, or its fields.

    >>> diagnose(model=net, batch=(x, y), loss_fn=F.cross_entropy, task="classification", num_classes=10)
    """
    from ..diagnostics.checks import SpecError, run_checks

    if spec is not None and fields:
        raise UsageError("pass either a spec or its fields as keywords, not both")
    _check_options(steps, checks)
    try:
        raw = run_checks(spec if spec is not None else fields, seed=seed, steps=steps, device=device, only=checks)
    except SpecError as exc:
        raise UsageError(str(exc)) from exc
    return DiagnosticReport.model_validate({"target": "<in-process>", **raw})
