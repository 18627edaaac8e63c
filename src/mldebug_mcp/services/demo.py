"""The demo: lint a bundled buggy example, then diagnose its debug spec in a child of this interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import content
from ..diagnostics.launch import ProgressCallback
from ..errors import UsageError
from ..models.diagnose import DiagnosticReport
from ..models.lint import LintReport
from . import diagnose, lint

EXAMPLE = "double_softmax"


def examples() -> list[str]:
    """Bundled examples that have a buggy.py."""
    return sorted(p.parent.name for p in content.examples_dir().glob("*/buggy.py"))


def example_path(name: str = EXAMPLE) -> Path:
    if name not in examples():  # a name, never a path: it only ever picks a bundled folder
        raise UsageError(f"no bundled example {name!r}; choose one of: {', '.join(examples())}")
    return content.examples_dir() / name / "buggy.py"


async def run_demo(name: str = EXAMPLE, on_progress: ProgressCallback | None = None
                   ) -> tuple[Path, LintReport, DiagnosticReport]:
    path = example_path(name)
    lint_report = lint.lint([str(path)])
    report = await diagnose.diagnose_target(f"{path}:debug_spec", limits=diagnose.limits(python=sys.executable),
                                            cwd=path.parent, on_progress=on_progress)
    return path, lint_report, report
