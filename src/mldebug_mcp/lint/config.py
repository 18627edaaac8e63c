"""Lint settings: rule selection from `[tool.mldebug]` in pyproject.toml and from the CLI."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..safe_read import inside, read_bounded

MAX_PYPROJECT_BYTES = 1 << 20
# Most severe first: error = silent wrong results, warning = likely bug, info = hygiene (rule.py says more).
SEVERITIES = ("error", "warning", "info")
KEYS = ("select", "ignore", "exclude", "severity")
CODE = re.compile(r"^[A-Z]+[0-9]*$")
# `mldebug` as a TOML key in any spelling: [tool.mldebug], [tool."mldebug"], tool.mldebug.select = ..., a line
# `mldebug = {...}` under [tool], tool = {mldebug = ...}. A name such as mldebug-mcp or mldebug_mcp is no key.
MENTIONS_TABLE = re.compile(r"""(?:^|[{,.\s])["']?mldebug["']?\s*[=.\]]""", re.MULTILINE)
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "__pycache__", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".tox", ".nox", "node_modules", "build", "dist", ".eggs", "site-packages", ".ipynb_checkpoints",
})


@dataclass(frozen=True)
class LintSettings:
    select: tuple[str, ...] = ("MLD",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = field(default=())
    severity: str = "info"  # the least severe finding reported: rules below it are not run

    def shows(self, severity: str) -> bool:
        """Whether a finding of `severity` is at or above the threshold (an unknown one always is)."""
        return severity not in SEVERITIES or SEVERITIES.index(severity) <= SEVERITIES.index(self.severity)

    def enabled(self, code: str) -> bool:
        """Longest matching prefix wins, as in ruff: --select MLD0 --ignore MLD001."""
        chosen = max((p for p in self.select if code.startswith(p)), key=len, default=None)
        dropped = max((p for p in self.ignore if code.startswith(p)), key=len, default=None)
        if chosen is None:
            return False
        return dropped is None or len(chosen) > len(dropped)


def find_pyproject(start: Path, roots: tuple[Path, ...] | None = None) -> Path | None:
    """The nearest pyproject.toml at or above `start`; with `roots`, never above the allowed directories."""
    for folder in [start, *start.parents]:
        if roots is not None and not inside(folder, roots):
            return None
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_settings(start: Path | None, select: list[str] | None = None, ignore: list[str] | None = None,
                  roots: tuple[Path, ...] | None = None, severity: str | None = None) -> LintSettings:
    """`[tool.mldebug]` from the pyproject.toml nearest `start` (none for source text), then the caller's
    select (replaces), ignore (adds) and severity (replaces). Codes are case-insensitive; an entry may list
    several, comma-separated. With `roots` (the server's allow-list) only a pyproject.toml inside them is read."""
    table: dict = {}
    folder = None if start is None else _folder_of(start)
    pyproject = None if folder is None else find_pyproject(folder, roots)
    if pyproject is not None:
        table = _mldebug_table(pyproject, roots)
    for key in ("select", "ignore", "exclude"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{pyproject}: [tool.mldebug] {key} must be a list of strings")
    unknown = set(table) - set(KEYS)
    if unknown:
        raise UsageError(f"{pyproject}: unknown [tool.mldebug] keys {sorted(unknown)}; use {', '.join(KEYS)}")
    if "severity" in table:
        check_severity(table["severity"], f"{pyproject}: [tool.mldebug] severity")
    if severity is not None:
        check_severity(severity, "severity")
    return LintSettings(
        select=tuple(parse_codes(select) or parse_codes(table.get("select")) or ("MLD",)),
        ignore=tuple(parse_codes(table.get("ignore"))) + tuple(parse_codes(ignore)),
        exclude=tuple(table.get("exclude", [])),
        severity=severity or table.get("severity", "info"),
    )


def check_severity(value: object, where: str) -> None:
    if value not in SEVERITIES:
        raise UsageError(f"{where} must be one of {', '.join(reversed(SEVERITIES))} (the least severe finding "
                         f"to report), not {value!r}")


def _folder_of(start: Path) -> Path:
    """The folder whose settings apply to `start`: its own if a folder, else its parent's. A path changing
    while it is resolved (a link being replaced) is taken as written; the file's own read is checked anyway."""
    try:
        return start.resolve() if start.is_dir() else start.resolve().parent
    except (OSError, RuntimeError):
        return start.absolute().parent


def _mldebug_table(pyproject: Path, roots: tuple[Path, ...] | None) -> dict:
    """`[tool.mldebug]` of a pyproject.toml; empty when the file never mentions it."""
    try:
        text = read_bounded(pyproject, MAX_PYPROJECT_BYTES, roots, "pyproject.toml").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{pyproject}: cannot read [tool.mldebug]: {exc}") from exc
    if not MENTIONS_TABLE.search(text):  # no table of ours: the rest of the project's file is not ours to parse
        return {}
    import tomllib  # about a sixth of `lint`'s start-up: paid only by projects that configure it

    try:
        table = tomllib.loads(text).get("tool", {}).get("mldebug", {})
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{pyproject}: cannot read [tool.mldebug]: {exc}") from exc
    if not isinstance(table, dict):
        raise UsageError(f"{pyproject}: tool.mldebug must be a table, e.g. [tool.mldebug] with select = [...]")
    return table


def parse_codes(values: list[str] | None) -> list[str]:
    """Rule codes or prefixes, upper-cased, with comma-separated entries split: ['mld001, MLD01'] -> both."""
    result = []
    for value in values or []:
        for code in (v.strip().upper() for v in value.split(",")):
            if not code:
                continue
            if not CODE.match(code):
                raise UsageError(f"{code!r} is not a rule code or prefix; use codes such as MLD001 or MLD0")
            result.append(code)
    return result
