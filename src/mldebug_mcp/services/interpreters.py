"""What the MCP server may execute for diagnose: which interpreter, and which module targets.

A client's request names both, and a client is not trusted: over MCP the interpreter must be the
server's own, the one named when the server was started (`serve --diagnose-python`, or the
MLDEBUG_DIAGNOSE_PYTHON environment variable), or the interpreter of a virtual environment inside
an allowed directory (a project's .venv). A module target must be a file inside the folder the
child runs in. The CLI and the Python API run what their user names.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import UsageError
from ..safe_read import inside
from .interpreter_search import is_virtual_env
from .paths import AllowedDirs

ENV_VAR = "MLDEBUG_DIAGNOSE_PYTHON"
VENV_BIN_DIRS = ("bin", "Scripts")  # POSIX, Windows


def configured_python(named: str | None = None, environ: dict[str, str] | None = None) -> str | None:
    """The interpreter named at server start (the flag wins over the environment), checked once there."""
    env = os.environ if environ is None else environ
    raw = named or env.get(ENV_VAR, "").strip() or None
    if raw is None:
        return None
    path = Path(raw).expanduser().absolute()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise UsageError(f"--diagnose-python {raw!r} (or {ENV_VAR}) is not an executable file; give the path of "
                         "the python whose environment has torch, e.g. /path/to/project/.venv/bin/python")
    return str(path)


def allowed_python(requested: str | None, allowed: AllowedDirs, configured: str | None) -> str:
    """The interpreter a diagnose request may run, or UsageError saying which ones would be accepted."""
    if requested is None or not requested.strip():
        return configured or sys.executable
    if "\x00" in requested:
        raise UsageError("python contains a NUL byte")
    path = Path(requested).expanduser()
    if ".." in path.parts:
        raise UsageError(f"python {requested!r} contains '..'; give the interpreter's path without it")
    if not path.is_absolute():
        path = allowed.roots[0] / path  # `.venv/bin/python`, relative to the folder the child runs in
    trusted = {os.path.realpath(p) for p in (sys.executable, configured) if p}
    if os.path.realpath(path) in trusted or _venv_interpreter_inside(path, allowed):
        return str(path)
    accepted = [f"the server's own ({sys.executable})"] + ([f"the one it was started with ({configured})"]
                                                           if configured else [])
    raise UsageError(
        f"python {requested!r} may not be run by this server: over MCP diagnose runs {' or '.join(accepted)}, "
        f"or the interpreter of a virtual environment inside the allowed directories ({allowed.describe()}), "
        f"e.g. .venv/bin/python. To use another one, start the server with --diagnose-python PATH "
        f"(or set {ENV_VAR})"
    )


def _venv_interpreter_inside(path: Path, allowed: AllowedDirs) -> bool:
    """`<venv>/bin/python*` where <venv> holds pyvenv.cfg and lies (symlinks resolved) inside an allowed
    directory. The interpreter itself is usually a link to the base python, so only its folder is resolved."""
    folder = path.parent.resolve()
    if folder.name not in VENV_BIN_DIRS or not path.name.lower().startswith("python"):
        return False
    return (inside(folder, allowed.roots) and is_virtual_env(folder.parent) and path.is_file()
            and os.access(path, os.X_OK))


def module_inside(module: str, allowed: AllowedDirs, workdir: Path) -> Path:
    """The file of a dotted module target inside the child's working folder, which the child puts first
    on its path; UsageError when there is none (a module of the standard library or of site-packages)."""
    parts = module.split(".")
    candidates = [workdir.joinpath(*parts).with_suffix(".py"), workdir.joinpath(*parts, "__init__.py")]
    for candidate in candidates:
        if candidate.is_file():
            return allowed.check(str(candidate))  # its real path too must stay inside
    shown = " or ".join(str(c.relative_to(workdir)) for c in candidates)
    raise UsageError(
        f"module target {module!r} is not a module inside {workdir} (looked for {shown}): over MCP diagnose "
        "imports only code inside the allowed directories; give FILE.py:FUNCTION of a file there, e.g. "
        "train.py:debug_spec"
    )
