"""Lint output formats: ruff-style text, JSON, and SARIF 2.1.0."""

from __future__ import annotations

import json
from pathlib import Path

from .. import __version__
from ..models import Finding, RuleInfo
from ..lint.engine import LintResult

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def text(result: LintResult, show_fix: bool = True) -> str:
    lines = []
    for f in result.findings:
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.code} {f.name}: {f.message}")
        if show_fix and f.fix:
            lines.append(f"    fix: {f.fix}")
    return "\n".join(lines)


def summary(result: LintResult) -> str:
    n = len(result.findings)
    return f"{n} finding{'s' if n != 1 else ''} in {result.files} file{'s' if result.files != 1 else ''}"


def statistics(result: LintResult) -> str:
    return "\n".join(f"{count:5d}  {code}  {name}" for code, name, count in result.statistics())


def as_json(result: LintResult) -> str:
    return json.dumps([f.model_dump() for f in result.findings], indent=2)


def sarif(result: LintResult, rules: list[RuleInfo]) -> str:
    # every rule is described (not only those that fired) so ruleIndex is stable across runs
    index = {r.code: i for i, r in enumerate(rules)}
    run_rules = [
        {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.message.split("{")[0].strip() or r.name},
            "fullDescription": {"text": r.why},
            "help": {"text": f"{r.why} Fix: {r.fix} Evidence: {r.evidence}"},
            "defaultConfiguration": {"level": _LEVEL[r.severity]},
            "properties": {"category": r.category, "evidence": r.evidence},
        }
        for r in rules
    ]
    results = [_sarif_result(f, index) for f in result.findings]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mldebug-mcp", "version": __version__, "informationUri":
                                "https://github.com/mldebug-mcp/mldebug-mcp", "rules": run_rules}},
            "results": results,
        }],
    }
    return json.dumps(document, indent=2)


def _sarif_result(f: Finding, index: dict[str, int]) -> dict:
    entry = {
        "ruleId": f.code,
        "level": _LEVEL.get(f.severity, "warning"),
        "message": {"text": f"{f.message}. Fix: {f.fix}"},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": Path(f.path).as_posix()},
                "region": {"startLine": f.line, "startColumn": f.col, "endLine": max(f.end_line, f.line),
                           "endColumn": max(f.end_col, 1)},
            }
        }],
    }
    if f.code in index:
        entry["ruleIndex"] = index[f.code]
    return entry
