"""Helpers shared by the lint tests. For the MLD001 family (marked, found): a case is a dict of file name -> source
(dedented, after HEADER); the lines marked `# MLD001` are where the rule must fire, and nowhere else."""

import textwrap
from pathlib import Path

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths, lint_source

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def marked(files: dict[str, str]) -> list[tuple[str, int]]:
    return sorted((name, number) for name, text in files.items()
                  for number, line in enumerate((HEADER + textwrap.dedent(text)).splitlines(), 1) if "# MLD001" in line)


def found(tmp_path: Path, files: dict[str, str], jobs: int = 1) -> list[tuple[str, int]]:
    for name, text in files.items():
        (tmp_path / name).write_text(HEADER + textwrap.dedent(text))
    result = lint_paths([tmp_path], jobs=jobs)
    return sorted({(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD001"})


def line_of(source: str, text: str) -> int:
    """The 1-based line of the dedented `source` that first contains `text`."""
    return next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1) if text in line)


def project_findings(folder: Path, files: dict[str, str], code: str) -> list[tuple[str, int]]:
    """Write `files` (name -> source, dedented; a name may hold folders) under `folder`, lint it with only `code`
    selected, and return the (file name, line) of its findings, sorted."""
    for name, body in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body))
    report = lint_paths([folder], LintSettings(select=(code,)))
    return sorted((Path(f.path).name, f.line) for f in report.findings if f.code == code)


def both_ways(folder: Path, code: str) -> list[tuple[str, int]]:
    """Lint `folder` with one job and with two, assert both give the same `code` findings, and return their
    (file name, line) in report order."""
    found = [[(Path(f.path).name, f.line) for f in lint_paths([folder], jobs=jobs).findings if f.code == code]
             for jobs in (1, 2)]
    assert found[0] == found[1]
    return found[0]


def snippet_lines(source: str, code: str) -> list[int]:
    """Lint `source` (one file, header included) with only `code` selected and return its finding lines, sorted."""
    return sorted({f.line for f in lint_source(source, "snippet.py", LintSettings(select=(code,))) if f.code == code})


def marked_lines(source: str, code: str) -> list[int]:
    """The lines of `source` marked `# <code>`: where the rule must fire, and nowhere else."""
    return [number for number, line in enumerate(source.splitlines(), 1) if f"# {code}" in line]


def marked_snippet_tests(fires: dict, quiet: dict[str, list[str]], header: str):
    """The two tests of a table of single-file snippets: each `fires[code]` (a snippet, or a list of them) fires
    `code` exactly at its `# <code>` lines; each `quiet[code]` snippet (a correct variant) gives no `code` finding.
    Snippets are dedented and put after `header`."""
    firing = {code: [v] if isinstance(v, str) else v for code, v in fires.items()}

    def cases(table: dict[str, list[str]]) -> list[tuple[str, int]]:
        return [(code, index) for code, variants in sorted(table.items()) for index in range(len(variants))]

    @pytest.mark.parametrize("code, index", cases(firing))
    def test_snippet_fires_at_its_marks(code, index):
        source = header + textwrap.dedent(firing[code][index])
        assert snippet_lines(source, code) == marked_lines(source, code)

    @pytest.mark.parametrize("code, index", cases(quiet))
    def test_correct_snippet_is_quiet(code, index):
        assert snippet_lines(header + textwrap.dedent(quiet[code][index]), code) == []

    return test_snippet_fires_at_its_marks, test_correct_snippet_is_quiet
