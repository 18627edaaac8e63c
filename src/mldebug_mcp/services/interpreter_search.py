"""Which Python runs diagnose when nobody named one: the project's, found the way editors find it.

mldebug-mcp often runs from an environment of its own (uvx for the Claude Code plugin, pipx),
while torch and the user's code live in the project's environment. The candidates, in order:
the interpreter named at server start (--diagnose-python, MLDEBUG_DIAGNOSE_PYTHON), an activated
virtual environment ($VIRTUAL_ENV), uv's project environment ($UV_PROJECT_ENVIRONMENT), a `.venv`
or `venv` folder of the project, and last this program's own interpreter. The first candidate
able to load torch is used, and the report says which one and why.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..safe_read import inside

PROJECT_VENVS = (".venv", "venv")
TORCH = "torch"
# asks the other interpreter whether the package is there, without importing it
PROBE = f"from importlib.util import find_spec; raise SystemExit(0 if find_spec({TORCH!r}) else 3)"
PROBE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Interpreter:
    path: str
    source: str
    """Why this one: 'given', "$VIRTUAL_ENV", 'project .venv', ..."""


def is_virtual_env(root: Path) -> bool:
    """A folder made by `python -m venv`, uv or virtualenv: it holds pyvenv.cfg."""
    return (root / "pyvenv.cfg").is_file()


def venv_python(root: Path) -> Path | None:
    """The interpreter of the virtual environment at `root`, if any."""
    if not is_virtual_env(root):
        return None
    for relative in ("bin/python", "bin/python3", "Scripts/python.exe"):
        candidate = root / relative
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def candidates(folders: list[Path], configured: str | None = None,
               environ: dict[str, str] | None = None) -> list[Interpreter]:
    """Every interpreter worth trying, most specific first, each once."""
    env = os.environ if environ is None else environ
    found: list[Interpreter] = []
    if configured:
        found.append(Interpreter(configured, "named at server start (--diagnose-python)"))
    roots: list[tuple[Path, str]] = []
    if env.get("VIRTUAL_ENV"):
        roots.append((Path(env["VIRTUAL_ENV"]), "the activated virtual environment ($VIRTUAL_ENV)"))
    for folder in folders:
        if env.get("UV_PROJECT_ENVIRONMENT"):
            roots.append((folder / env["UV_PROJECT_ENVIRONMENT"], "uv's project environment ($UV_PROJECT_ENVIRONMENT)"))
        roots += [(folder / name, f"the project's {name}") for name in PROJECT_VENVS]
    for root, source in roots:
        if "project" in source and not _stays_inside(root, folders):
            continue  # a project's venv that is a link to elsewhere is not the project's
        python = venv_python(root)
        if python is not None:
            found.append(Interpreter(str(python), f"{source}, {root}"))
    found.append(Interpreter(sys.executable, "mldebug-mcp's own interpreter"))
    unique: dict[str, Interpreter] = {}
    for interpreter in found:
        unique.setdefault(os.path.realpath(Path(interpreter.path).parent) + os.sep + Path(interpreter.path).name,
                          interpreter)
    return list(unique.values())


def _stays_inside(root: Path, folders: list[Path]) -> bool:
    try:
        return inside(root.resolve(), tuple(folder.resolve() for folder in folders))
    except (OSError, RuntimeError):
        return False


def has_torch(python: str) -> bool:
    """Whether `python` can import torch, asked without importing it (a fraction of a second)."""
    try:
        return subprocess.run([python, "-c", PROBE], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=PROBE_TIMEOUT_S, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_python(folders: list[Path], configured: str | None = None,
                environ: dict[str, str] | None = None) -> Interpreter:
    """The first candidate with torch; UsageError listing what was tried, with the one-line fix."""
    tried = candidates(folders, configured, environ)
    for interpreter in tried:
        if has_torch(interpreter.path):
            return interpreter
    listed = "; ".join(f"{i.path} ({i.source})" for i in tried)
    project = next((i for i in tried if "project" in i.source or "VIRTUAL_ENV" in i.source), tried[0])
    raise UsageError(
        f"no interpreter with torch was found; tried: {listed}. Fix: pass the python of the environment that has "
        f"torch and your code (CLI --python PATH, MCP python=PATH, or serve --diagnose-python PATH), or install "
        f"torch into one of them: {project.path} -m pip install torch"
    )
