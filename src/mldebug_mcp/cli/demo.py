"""`mldebug-mcp demo`: lint and diagnose a bundled buggy example, each finding with its evidence."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from ..content import examples_dir
from ..diagnostics import Limits, diagnose_target
from ..errors import ContentError
from ..models import DiagnosticReport, LintReport
from ..render.evidence import evidence_lines

EXAMPLE = "double_softmax"


def example_path(name: str = EXAMPLE) -> Path:
    path = examples_dir() / name / "buggy.py"
    if not path.is_file():
        raise ContentError(f"bundled example {name!r} is missing ({path}); reinstall mldebug-mcp")
    return path


def run_demo(name: str = EXAMPLE, on_progress=None) -> tuple[Path, LintReport, DiagnosticReport]:
    """Lint the example, then diagnose its debug_spec in a subprocess of this interpreter."""
    from ..services.paths import AllowedDirs
    from ..services.evidence import lint

    path = example_path(name)
    lint_report = lint(AllowedDirs((path.parent,)), [str(path)])
    report = anyio.run(lambda: diagnose_target(f"{path}:debug_spec", limits=Limits(python=sys.executable),
                                               cwd=path.parent, on_progress=on_progress))
    return path, lint_report, report


def demo_text(path: Path, lint_report: LintReport, report: DiagnosticReport) -> str:
    lines = [f"mldebug-mcp demo: {path}", "", "1. Static checks (mldebug-mcp lint)", ""]
    for f in lint_report.findings:
        lines.append(f"  line {f.line}: {f.code} {f.name}: {f.message}")
        lines.append(f"    fix: {f.fix}")
        lines += evidence_lines(f.evidence)
        lines.append("")
    if not lint_report.findings:
        lines.append("  no lint findings")
    lines += ["2. Runtime checks (mldebug-mcp diagnose)", "", str(report), "",
              "Try it on your own code: mldebug-mcp lint train.py; mldebug-mcp diagnose train.py:debug_spec"]
    return "\n".join(lines)
