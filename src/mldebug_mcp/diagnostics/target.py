"""Parse a diagnose target: 'path/to/train.py:debug_spec' or 'package.module:debug_spec'."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError

HINT = "give FILE.py:FUNCTION (e.g. train.py:debug_spec) or package.module:FUNCTION"


@dataclass(frozen=True)
class Target:
    where: str      # the file as written, or the dotted module name
    function: str
    is_file: bool


def parse_target(raw: str) -> Target:
    where, sep, name = raw.strip().rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"target {raw!r} has no ':FUNCTION' part; {HINT}")
    if not name.isidentifier():
        raise UsageError(f"{name!r} is not a Python function name; {HINT}")
    if where.endswith(".py") or "/" in where or "\\" in where:
        return Target(where, name, is_file=True)
    if not all(part.isidentifier() for part in where.split(".")):
        raise UsageError(f"{where!r} is neither a .py file nor a dotted module name; {HINT}")
    return Target(where, name, is_file=False)
