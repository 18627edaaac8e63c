"""Parse and check a diagnose target: 'path/to/train.py:debug_spec' or 'package.module:debug_spec'."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..services.paths import AllowedDirs

HINT = "give FILE.py:FUNCTION (e.g. train.py:debug_spec) or package.module:FUNCTION"


@dataclass(frozen=True)
class Target:
    text: str           # what the child process is given
    path: Path | None   # the file, for file targets


def parse_target(raw: str, allowed: AllowedDirs | None = None) -> Target:
    where, sep, name = raw.strip().rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"target {raw!r} has no ':FUNCTION' part; {HINT}")
    if not name.isidentifier():
        raise UsageError(f"{name!r} is not a Python function name; {HINT}")
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = allowed.check(where) if allowed is not None else Path(where).expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"no such file: {where}; {HINT}")
        return Target(f"{path}:{name}", path)
    if not all(part.isidentifier() for part in where.split(".")):
        raise UsageError(f"{where!r} is neither a .py file nor a dotted module name; {HINT}")
    return Target(f"{where}:{name}", None)
