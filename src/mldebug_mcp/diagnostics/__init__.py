"""Runtime diagnostics: run the checks on a debug spec, in a subprocess or in this process.

`checks/` is the part that touches torch and runs in the user's interpreter; this level
parses targets, launches and watches the subprocess, and turns its JSON into a report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..models import DiagnosticReport
from ..services.paths import AllowedDirs
from .launch import Limits, ProgressCallback, run_in_subprocess
from .target import parse_target


async def diagnose_target(target: str, *, allowed: AllowedDirs | None = None, limits: Limits | None = None,
                          device: str | None = None, steps: int = 200, seed: int = 0,
                          checks: list[str] | None = None, cwd: Path | None = None,
                          on_progress: ProgressCallback | None = None) -> DiagnosticReport:
    """Diagnose the spec returned by TARGET, run in a child process with the user's interpreter."""
    parsed = parse_target(target, allowed)
    _check_options(steps, checks)
    options = {"device": device, "steps": steps, "seed": seed, "only": checks}
    workdir = cwd or (allowed.roots[0] if allowed is not None else Path.cwd())
    raw = await run_in_subprocess(parsed.text, options, limits or Limits(), workdir, on_progress)
    return DiagnosticReport(target=target, **raw)


def diagnose(spec: Any = None, *, seed: int = 0, steps: int = 200, device: str | None = None,
             checks: list[str] | None = None, **fields: Any) -> DiagnosticReport:
    """Diagnose live objects in this process (for notebooks): a DebugSpec, a dict, or its fields.

    >>> diagnose(model=net, batch=(x, y), loss_fn=F.cross_entropy, task="classification", num_classes=10)
    """
    from ..errors import UsageError
    from .checks import SpecError, run_checks

    if spec is not None and fields:
        raise UsageError("pass either a spec or its fields as keywords, not both")
    _check_options(steps, checks)
    try:
        raw = run_checks(spec if spec is not None else fields, seed=seed, steps=steps, device=device, only=checks)
    except SpecError as exc:
        raise UsageError(str(exc)) from exc
    return DiagnosticReport(target="<in-process>", **raw)


def _check_options(steps: int, checks: list[str] | None) -> None:
    from ..errors import UsageError
    from .checks import CHECK_IDS

    if steps < 10:
        raise UsageError(f"steps must be at least 10 (got {steps}); the overfit check needs room to fall")
    unknown = sorted(set(checks or ()) - set(CHECK_IDS))
    if unknown:
        raise UsageError(f"unknown check(s) {unknown}; choose from {', '.join(CHECK_IDS)}")


__all__ = ["Limits", "diagnose", "diagnose_target"]
