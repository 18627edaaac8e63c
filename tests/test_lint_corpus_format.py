"""The lint development corpus stays honest: every case parses, has the fields of the README's format with
the right types, a unique id, no repository kept out for the held-out set, and committed files where it says
so. Fast: nothing is linted here (benchmarks/lint_corpus.py does that)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

CORPUS = Path(__file__).resolve().parents[1] / "benchmarks" / "lint_corpus"
CASES = sorted((CORPUS / "cases").glob("*.yaml"))
PERMISSIVE = {"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "Unlicense"}


def held_out() -> set[str]:
    text = (CORPUS / "README.md").read_text(encoding="utf-8")
    part = text.split("Kept out on purpose", 1)[1]
    return {name.rstrip(".").lower() for name in re.findall(r"[\w.-]+/[\w.-]+", part.split(":", 1)[1])}


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_held_out_list_is_read() -> None:
    names = held_out()
    assert "karpathy/nanogpt" in names and "zhouhaoyi/informer2020" in names
    assert len(names) >= 20


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_format(path: Path) -> None:
    case = load(path)
    assert isinstance(case, dict)
    assert isinstance(case["id"], str) and case["id"] == path.stem
    assert case["kind"] in {"buggy", "clean"}
    assert isinstance(case["repo"], str) and re.fullmatch(r"[\w.-]+/[\w.-]+", case["repo"])
    assert case["repo"].lower() not in held_out(), f"{case['repo']} is kept out for the held-out set"
    assert isinstance(case["commit"], str) and re.fullmatch(r"[0-9a-f]{7,40}", case["commit"])
    assert isinstance(case["paths"], list) and case["paths"]
    assert all(isinstance(p, str) and p and not p.startswith("/") and ".." not in p for p in case["paths"])
    assert isinstance(case["label"], str) and case["label"].strip()
    assert isinstance(case["licence"], str) and case["licence"]
    if case["kind"] == "buggy":
        assert isinstance(case["line"], int) and not isinstance(case["line"], bool) and case["line"] > 0
        assert isinstance(case["class"], str)
        assert re.fullmatch(r"MLD\d{3}|NEW:[a-z0-9-]+", case["class"])
    if "rules" in case and case["rules"] is not None:
        assert isinstance(case["rules"], list) and all(re.fullmatch(r"MLD\d{3}", r) for r in case["rules"])
    files = case["files"]
    if files is None:
        return
    assert case["licence"] in PERMISSIVE, "copies are committed for permissive licences only"
    assert isinstance(files, str) and files.rstrip("/") == f"files/{case['id']}"
    folder = CORPUS / files
    assert folder.is_dir()
    for p in case["paths"]:
        assert (folder / p).is_file(), f"{p} is not committed under {files}"
    if case["kind"] == "buggy":
        lines = (folder / case["paths"][0]).read_text(encoding="utf-8", errors="replace").splitlines()
        assert case["line"] <= len(lines)


def test_ids_unique() -> None:
    ids = [load(p)["id"] for p in CASES]
    assert len(ids) == len(set(ids))
