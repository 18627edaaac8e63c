"""Lint results and rule documentation as text: ruff-style lines, JSON, SARIF 2.1.0, the rule table."""

from __future__ import annotations

from collections import Counter
from pathlib import PurePath

from .._version import __version__
from ..models.lint import Finding, LintReport, RuleInfo

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SOURCE_URL = "https://github.com/mldebug-mcp/mldebug-mcp"  # pyproject's [project.urls] Source (a test holds them equal)
# The generated rules table (one row a rule, checked against the code); tables give rows no anchors of their own.
RULES_DOC_URL = f"{SOURCE_URL}/blob/main/refs/static-analysis.md#rules-checked-by-mldebug-mcp-lint"
FINGERPRINT_KEY = "mldebug/v1"  # SARIF's "<name>/v<version>" form: bump when the fingerprint's recipe changes
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def location(f: Finding) -> str:
    """`path:line:col`, or `path:cell N:line:col` in a notebook (ruff's form)."""
    cell = f"cell {f.cell}:" if f.cell is not None else ""
    return f"{f.path}:{cell}{f.line}:{f.col}"


def text(report: LintReport, show_fix: bool = True) -> str:
    """`path:line:col: CODE name: message`, each with its fix and evidence id below."""
    lines = []
    for f in report.findings:
        lines.append(f"{location(f)}: {f.code} {f.name}: {f.message}")
        if show_fix and f.fix:
            lines.append(f"    fix: {f.fix}" + (f" [{f.evidence}]" if f.evidence else ""))
    return "\n".join(lines)


def summary(report: LintReport) -> str:
    n = len(report.findings)
    shown = {"warning": " (severity warning and above)", "error": " (severity error)"}.get(report.min_severity, "")
    return f"{n} finding{'s' if n != 1 else ''} in {report.files} file{'s' if report.files != 1 else ''}{shown}"


def report_text(report: LintReport) -> str:
    """The findings and the summary line (what the MCP tool shows the model)."""
    return "\n".join(part for part in (text(report), summary(report)) if part)


def statistics(report: LintReport) -> str:
    """Findings per rule, most frequent first."""
    counts = Counter((f.code, f.name) for f in report.findings)
    rows = sorted(((code, name, n) for (code, name), n in counts.items()), key=lambda t: (-t[2], t[0]))
    return "\n".join(f"{count:5d}  {code}  {name}" for code, name, count in rows)


def as_json(report: LintReport) -> str:
    import json  # the text format, the one run on every save, does without it

    return json.dumps([f.model_dump() for f in report.findings], indent=2)


def sarif(report: LintReport, rules: list[RuleInfo]) -> str:
    # every rule is described (not only those that fired) so ruleIndex is stable across runs
    index = {r.code: i for i, r in enumerate(rules)}
    run_rules = [
        {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.message.split("{")[0].strip() or r.name},
            "fullDescription": {"text": r.why},
            "help": {"text": f"{r.why} Fix: {r.fix} Evidence: {r.evidence}"},
            "helpUri": RULES_DOC_URL,
            "defaultConfiguration": {"level": _LEVEL[r.severity]},
            "properties": {"category": r.category, "evidence": r.evidence},
        }
        for r in rules
    ]
    results = [_sarif_result(f, index, fingerprint)
               for f, fingerprint in zip(report.findings, fingerprints(report.findings), strict=True)]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mldebug-mcp", "version": __version__, "informationUri": SOURCE_URL,
                                "rules": run_rules}},
            "results": results,
        }],
    }
    import json

    return json.dumps(document, indent=2)


def fingerprints(findings: list[Finding]) -> list[str]:
    """One fingerprint a finding that survives edits moving it: a hash of its rule, file and message (the
    lines and cells it names taken out) and which occurrence of these it is in the file. Line, column and
    notebook cell are left out, so inserting lines or cells above a finding keeps its fingerprint."""
    import hashlib
    import re

    seen: Counter[tuple[str, str, str]] = Counter()
    prints = []
    for f in findings:
        message = re.sub(r"\b(?:cell \d+, )?line \d+", "line", f.message)  # MLD015's 'built on cell 2, line 5'
        key = (f.code, PurePath(f.path).as_posix(), " ".join(message.split()))
        seen[key] += 1
        prints.append(hashlib.sha256("\0".join((*key, str(seen[key]))).encode()).hexdigest()[:32])
    return prints


def _sarif_result(f: Finding, index: dict[str, int], fingerprint: str) -> dict:
    location: dict = {
        "physicalLocation": {
            "artifactLocation": {"uri": PurePath(f.path).as_posix()},
            "region": {"startLine": f.line, "startColumn": f.col, "endLine": max(f.end_line, f.line),
                       "endColumn": max(f.end_col, 1)},
        }
    }
    where = ""
    if f.cell is not None:
        # SARIF has no notebook cells: the region's lines are the cell's, and the cell is named beside them
        location["logicalLocations"] = [{"name": f"cell {f.cell}", "kind": "module",
                                         "fullyQualifiedName": f"{PurePath(f.path).as_posix()}:cell {f.cell}"}]
        location["properties"] = {"cell": f.cell}
        where = f"In cell {f.cell}, line {f.line}: "
    entry = {
        "ruleId": f.code,
        "level": _LEVEL.get(f.severity, "warning"),
        "message": {"text": f"{where}{f.message}. Fix: {f.fix}"},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    if f.code in index:
        entry["ruleIndex"] = index[f.code]
    return entry


def rule_text(info: RuleInfo) -> str:
    indent = lambda code: "\n".join("    " + line for line in code.rstrip().splitlines())  # noqa: E731
    return (
        f"{info.code} {info.name} ({info.category}, {info.severity})\n\n"
        f"Why: {info.why}\nFix: {info.fix}\n\nBad:\n{indent(info.bad)}\n\nGood:\n{indent(info.good)}\n\n"
        f"Evidence: [{info.evidence}] (`mldebug-mcp quote {info.evidence}`)"
    )


def rules_text(infos: list[RuleInfo]) -> str:
    """One line a rule: code, name, severity, why."""
    name_width = max(len(i.name) for i in infos)
    return "\n".join(f"{i.code}  {i.name:<{name_width}}  {i.severity:<7}  {i.why}" for i in infos)


def rules_markdown(infos: list[RuleInfo]) -> str:
    """The generated rules section of refs/static-analysis.md."""
    rows = ["| Code | Name | Severity | What it flags | Fix | Evidence |", "|---|---|---|---|---|---|"]
    for info in infos:
        what = info.message.replace("{", "").replace("}", "").replace("|", "\\|")
        fix = info.fix.replace("|", "\\|")
        rows.append(f"| {info.code} | `{info.name}` | {info.severity} | {what} | {fix} | [{info.evidence}] |")
    return "\n".join(rows)
