"""Lint: one way to turn a request (files or source text, select and ignore) into a LintReport, for the
CLI, the MCP server and the Python API alike. The rules run in lint/; this module checks paths and
builds the settings."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..lint.catalog import explain, rule_infos
from ..lint.config import LintSettings, load_settings
from ..lint.engine import MAX_SOURCE_BYTES, UNREADABLE, lint_paths, lint_source, report
from ..lint.registry import RULES
from ..models.lint import LintReport, RuleInfo
from .paths import AllowedDirs

__all__ = ["explain_rule", "lint", "rules", "settings"]


def settings(start: Path | None, select: list[str] | None = None, ignore: list[str] | None = None,
             roots: tuple[Path, ...] | None = None, severity: str | None = None) -> LintSettings:
    """`[tool.mldebug]` of the project around `start` (none for source text; with `roots`, only inside them)
    with the caller's select, ignore and severity on top; every code must name a rule or a prefix of one."""
    built = load_settings(start, select, ignore, roots, severity)
    known = [rule.code for rule in RULES] + [UNREADABLE]
    for code in (*built.select, *built.ignore):
        if not any(k.startswith(code) for k in known):
            raise UsageError(f"{code!r} matches no lint rule; `mldebug-mcp rules` (MCP: explain_rule) lists them")
    return built


def lint(paths: list[str] | None = None, source: str | None = None, filename: str = "<source>",
         select: list[str] | None = None, ignore: list[str] | None = None, *, allowed: AllowedDirs | None = None,
         jobs: int = 1, severity: str | None = None, cache: bool = True) -> LintReport:
    """Lint files and folders, or a piece of source text: exactly one of them.

    `severity` (info, warning or error) is the least severe finding to report; None takes `[tool.mldebug]`
    severity, else info (all). With `allowed` (the server's allow-list) every path must lie inside it;
    without (the CLI, the Python API) paths are taken as given. A path that does not exist is an error
    either way. With `cache`, a file unchanged since an earlier run is read but not checked again
    (lint/result_cache.py)."""
    if bool(paths) == (source is not None):
        raise UsageError("give either paths (files or folders) or source (code text), not both")
    if jobs < 1:
        raise UsageError("jobs must be at least 1")
    if source is not None:
        size = len(source.encode("utf-8", "surrogatepass"))
        if size > MAX_SOURCE_BYTES:
            raise UsageError(f"source is {size:,} bytes, over the {MAX_SOURCE_BYTES:,}-byte limit for one file; "
                             "lint the files on disk instead (paths=[...]), where each file has that limit")
        built = settings(None, select, ignore, severity=severity)
        return report(lint_source(source, filename, built), files=1, min_severity=built.severity)
    checked = [allowed.check(p) if allowed is not None else Path(p).expanduser() for p in paths or []]
    missing = [str(p) for p in checked if not (p.exists() or p.is_symlink())]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    roots = allowed.roots if allowed is not None else None
    return lint_paths(checked, settings(checked[0], select, ignore, roots, severity), jobs=jobs, roots=roots,
                      cache=cache)


def rules() -> list[RuleInfo]:
    """Every rule's documentation, sorted by code."""
    return rule_infos()


def explain_rule(rule: str) -> RuleInfo:
    """One rule by code (MLD001) or name (activation-into-logit-loss)."""
    return explain(rule)
