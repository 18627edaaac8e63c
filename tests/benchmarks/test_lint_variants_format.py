"""The blind-written variants stay a fair test: every case parses, its twin differs from it in the labelled file
only, and the labelled line is one the fix changes. Nothing is linted here (benchmarks/lint_variants.py does)."""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2] / "benchmarks" / "lint_variants"
CASES = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))


def sources(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.py"))}


def test_manifest_lists_every_folder_once() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) == len(list((ROOT / "cases").iterdir())) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_twin_differs_only_by_the_fix(case: dict) -> None:
    folder = ROOT / "cases" / case["id"]
    bug, ok = sources(folder / "bug"), sources(folder / "ok")
    assert set(bug) == set(ok)
    for text in (*bug.values(), *ok.values()):
        ast.parse(text)
    labelled = case["file"].removeprefix("bug/")
    assert [name for name in bug if bug[name] != ok[name]] == [labelled]
    changed = [op for op in difflib.SequenceMatcher(a=bug[labelled].splitlines(), b=ok[labelled].splitlines())
               .get_opcodes() if op[0] != "equal"]
    first_changed = changed[0][1] + 1  # the first line of the buggy file that the fix touches (1-based)
    assert abs(case["line"] - first_changed) <= 1 or any(i1 <= case["line"] - 1 <= i2 for _, i1, i2, _, _ in changed)
