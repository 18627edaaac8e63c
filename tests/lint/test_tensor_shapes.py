"""MLD040, MLD041, MLD061 on shapes a single fixture cannot show: star imports, several files of one run."""

from pathlib import Path

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths, lint_source


def _lines(source: str, code: str) -> list[int]:
    return [f.line for f in lint_source(source, "snippet.py", LintSettings(select=(code,))) if f.code == code]


def _run(tmp_path: Path, files: dict[str, str], code: str) -> list[tuple[str, int]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = lint_paths([tmp_path / name for name in files], LintSettings(select=(code,)))
    return sorted((Path(f.path).name, f.line) for f in report.findings if f.code == code)


def test_softplus_through_a_star_import_is_seen():
    source = (
        "from .common import *\n"
        "def head(h, layer):\n"
        "    std = F.softplus(layer(h) + 1e-5)\n"
        "    return std.log()\n"
    )
    assert _lines(source, "MLD061") == [4]
    assert _lines(source.replace("std.log()", "(std + 1e-5).log()"), "MLD061") == []
