"""Entry point inside the user's interpreter: build the spec, run the checks, stream JSON events.

Invoked by ../launch.py as `python -c BOOTSTRAP <checks_dir> <target> <events_file> <options_json>`.
Events are JSON lines appended to the events file: progress while running, then exactly one
`report` or `error` event. stdout and stderr are left to the user's code.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from typing import Any, Callable

from .result import user_traceback

_OWN_DIR = os.path.dirname(os.path.abspath(__file__))


class Events:
    def __init__(self, path: str) -> None:
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the whole run

    def emit(self, **event: Any) -> None:
        self._file.write(json.dumps(event) + "\n")
        self._file.flush()


def load_target(target: str, roots: list[str] | None = None) -> Callable[[], Any]:
    """'path/to/file.py:func' or 'package.module:func' -> the function.

    With `roots` (a server's allowed directories) the file, or the module's top-level package, must
    really lie inside them, judged here, in the interpreter that imports it, before anything runs."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise ValueError(f"target {target!r} must look like path/to/train.py:debug_spec or package.module:debug_spec")
    if where.endswith(".py") or os.sep in where or "/" in where:
        path = os.path.abspath(where)
        if roots is not None:
            _require_inside(where, [path], roots)
        sys.path.insert(0, os.path.dirname(path))  # so the file's sibling imports work
        spec = importlib.util.spec_from_file_location("_mldebug_user_module", path)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load {path} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        sys.path.insert(0, os.getcwd())
        if roots is not None:
            _require_inside(where, _module_locations(where.split(".")[0]), roots)
        module = importlib.import_module(where)
    if not hasattr(module, name):
        public = sorted(n for n in vars(module) if not n.startswith("_") and callable(getattr(module, n)))
        raise ValueError(f"{where} has no attribute {name!r}; callables there: {', '.join(public[:12]) or 'none'}")
    function = getattr(module, name)
    if not callable(function):
        raise ValueError(f"{where}:{name} is a {type(function).__name__}, not a function returning a debug spec")
    return function


def _module_locations(top: str) -> list[str]:
    """Where a top-level module would be imported from, found without importing it."""
    loaded = sys.modules.get(top)
    if loaded is not None:  # already imported (os, sys, torch...): a file of the same name elsewhere is not used
        found = [getattr(loaded, "__file__", None), *list(getattr(loaded, "__path__", None) or [])]
    else:
        spec = importlib.util.find_spec(top)
        found = [] if spec is None else [spec.origin, *list(spec.submodule_search_locations or [])]
    return [f for f in found if f and f not in ("built-in", "frozen")]


def _require_inside(where: str, locations: list[str], roots: list[str]) -> None:
    real_roots = [os.path.realpath(r) for r in roots]
    outside = [os.path.realpath(loc) for loc in locations
               if not any(os.path.realpath(loc) == r or os.path.realpath(loc).startswith(r + os.sep)
                          for r in real_roots)]
    if outside or not locations:
        shown = outside[0] if outside else "no file (built in, or not found)"
        raise ValueError(f"{where} is imported from {shown}, outside the allowed directories ({', '.join(roots)}); "
                         "over MCP diagnose runs only code inside them: give FILE.py:FUNCTION of a file there")


def main(argv: list[str]) -> int:
    target, events_path, options = argv[0], argv[1], json.loads(argv[2])
    events = Events(events_path)
    events.emit(event="started", pid=os.getpid(), python=sys.executable)
    try:
        import torch  # noqa: F401 - fail early with a clear message
    except ImportError as exc:
        events.emit(event="error", stage="import", error={"type": "ImportError", "message": str(exc), "frames": []})
        return 1
    from . import SpecError, run_checks

    try:
        build = load_target(target, options.get("roots"))
        spec = build()
    except Exception as exc:
        events.emit(event="error", stage="build", error=user_traceback(exc, _OWN_DIR))
        return 1
    try:
        report = run_checks(spec, seed=options.get("seed", 0), steps=options.get("steps", 200),
                            device=options.get("device"), only=options.get("only"),
                            progress=lambda i, n, check: events.emit(event="progress", index=i, total=n, check=check))
    except SpecError as exc:
        events.emit(event="error", stage="spec", error={"type": "SpecError", "message": str(exc), "frames": []})
        return 1
    except Exception as exc:
        events.emit(event="error", stage="run", error=user_traceback(exc, _OWN_DIR))
        return 1
    events.emit(event="report", report=report)
    return 0
