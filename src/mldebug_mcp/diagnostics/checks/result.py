"""The result of one check, as plain data that survives a JSON round trip.

This package runs inside the user's interpreter, which may have only torch installed:
it uses the standard library and torch, and only relative imports.
"""

from __future__ import annotations

import math
import os
import sys
import sysconfig
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any

PASS, WARN, FAIL, SKIPPED, ERROR = "pass", "warn", "fail", "skipped", "error"
# A check that raised (error) says nothing about the model: above warn, so a run with one is not
# read as healthy, and below fail, which is a finding about the model.
STATUS_ORDER = {SKIPPED: 0, PASS: 1, WARN: 2, ERROR: 3, FAIL: 4}


@dataclass
class CheckResult:
    """Verdict of one check: what was measured, what was expected, and what to do next."""

    id: str
    title: str
    status: str
    summary: str
    measured: dict[str, Any] = field(default_factory=dict)
    expected: dict[str, Any] = field(default_factory=dict)
    meaning: str = ""
    next_test: str = ""
    quotes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    series: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return _finite(asdict(self))


def worst(statuses: list[str]) -> str:
    """The overall status: the most severe one, or pass when every check was skipped."""
    top = max(statuses, key=STATUS_ORDER.__getitem__, default=PASS)
    return PASS if top == SKIPPED else top


def user_traceback(exc: BaseException, own_dir: str) -> dict[str, Any]:
    """The exception with only the user's frames: none from this package, torch, installed packages
    or the standard library (their frames would be read as the user's code)."""
    libraries = _library_dirs()
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith(own_dir) and not _in_library(f.filename, libraries)]
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "frames": [f"{f.filename}:{f.lineno} in {f.name}: {(f.line or '').strip()}" for f in frames],
    }


def check_frames(exc: BaseException, own_dir: str) -> list[str]:
    """The frames of this package's own code in the traceback: where a check itself broke."""
    return [f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}: {(f.line or '').strip()}"
            for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(own_dir)]


def _library_dirs() -> tuple[str, ...]:
    """Where library code lives in this interpreter: the standard library, site-packages and torch."""
    paths = sysconfig.get_paths()
    found = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)}
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "__file__", None):
        found.add(os.path.dirname(torch.__file__))
    return tuple(os.path.join(os.path.realpath(d), "") for d in found)


def _in_library(filename: str, libraries: tuple[str, ...]) -> bool:
    if filename.startswith("<frozen "):  # importlib's; <ipython-input-...> and <string> may be the user's
        return True
    parts = filename.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts or os.path.realpath(filename).startswith(libraries)


def _finite(value: Any) -> Any:
    """JSON has no NaN or Infinity: spell them as strings so the report stays valid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
