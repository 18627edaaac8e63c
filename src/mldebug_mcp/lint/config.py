"""Lint settings: rule selection from `[tool.mldebug]` in pyproject.toml and from the CLI."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "__pycache__", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".tox", ".nox", "node_modules", "build", "dist", ".eggs", "site-packages", ".ipynb_checkpoints",
})


@dataclass(frozen=True)
class LintSettings:
    select: tuple[str, ...] = ("MLD",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = field(default=())

    def enabled(self, code: str) -> bool:
        """Longest matching prefix wins, as in ruff: --select MLD0 --ignore MLD001."""
        chosen = max((p for p in self.select if code.startswith(p)), key=len, default=None)
        dropped = max((p for p in self.ignore if code.startswith(p)), key=len, default=None)
        if chosen is None:
            return False
        return dropped is None or len(chosen) > len(dropped)


def find_pyproject(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_settings(start: Path, select: list[str] | None = None, ignore: list[str] | None = None) -> LintSettings:
    """`[tool.mldebug]` from the nearest pyproject.toml, then CLI --select (replaces) and --ignore (adds)."""
    table: dict = {}
    pyproject = find_pyproject(start.resolve() if start.is_dir() else start.resolve().parent)
    if pyproject is not None:
        try:
            table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("mldebug", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"{pyproject}: cannot read [tool.mldebug]: {exc}") from exc
    for key in ("select", "ignore", "exclude"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{pyproject}: [tool.mldebug] {key} must be a list of strings")
    unknown = set(table) - {"select", "ignore", "exclude"}
    if unknown:
        raise UsageError(f"{pyproject}: unknown [tool.mldebug] keys {sorted(unknown)}; use select, ignore, exclude")
    return LintSettings(
        select=tuple(_codes(select) or table.get("select") or ("MLD",)),
        ignore=tuple(table.get("ignore", [])) + tuple(_codes(ignore)),
        exclude=tuple(table.get("exclude", [])),
    )


def _codes(values: list[str] | None) -> list[str]:
    result = []
    for value in values or []:
        result.extend(v.strip().upper() for v in value.split(",") if v.strip())
    return result
