"""The lint corpora stay honest: every case of the development corpus and of the blind splits parses, has the
fields of the README's format with the right types, a unique id, no repository kept out for the held-out set,
no repository in both corpora, and no copy of another project's code in git (files/ is extracted locally).
Fast: nothing is linted here (benchmarks/lint_corpus.py does that)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "lint_corpus"
# the blind splits: each scored once, then development data (a split being collected is checked as it grows)
BLIND_PREFIX = "lint_corpus_blind"  # the first split has no number
BLINDS = tuple(sorted((ROOT / "benchmarks").glob(f"{BLIND_PREFIX}*"),
                      key=lambda p: int(p.name.removeprefix(BLIND_PREFIX) or 1)))
CORPORA = (CORPUS, *BLINDS)
CASES = [case for corpus in CORPORA for case in sorted((corpus / "cases").glob("*.yaml"))]


def held_out() -> set[str]:
    text = (CORPUS / "README.md").read_text(encoding="utf-8")
    part = text.split("Kept out on purpose", 1)[1]
    return {name.rstrip(".").lower() for name in re.findall(r"[\w.-]+/[\w.-]+", part.split(":", 1)[1])}


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_every_blind_split_is_checked() -> None:
    assert len(BLINDS) >= 9 and BLINDS[0].name == BLIND_PREFIX and BLINDS[1].name == "lint_corpus_blind2"


def test_held_out_list_is_read() -> None:
    names = held_out()
    assert "karpathy/nanogpt" in names and "zhouhaoyi/informer2020" in names
    assert len(names) >= 20


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parents[1].name}/{p.stem}" for p in CASES])
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
    files = case.get("files")
    assert files is None or isinstance(files, str) and files.rstrip("/") == f"files/{case['id']}"
    first = path.parents[1] / "files" / case["id"] / case["paths"][0]
    if case["kind"] == "buggy" and first.is_file():  # extracted in this checkout
        assert case["line"] <= len(first.read_text(encoding="utf-8", errors="replace").splitlines())


def test_no_repository_is_in_both_corpora() -> None:
    def repos(corpus: Path) -> set[str]:
        return {load(p)["repo"].lower() for p in (corpus / "cases").glob("*.yaml")}

    for i, first in enumerate(CORPORA):
        for second in CORPORA[i + 1:]:
            assert not repos(first) & repos(second), (first.name, second.name)


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_no_extracted_file_is_tracked() -> None:
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--", *(str(c / "files") for c in CORPORA)],
                             capture_output=True, text=True, check=True)
    assert tracked.stdout == "", "other projects' code is extracted locally, never committed"


def test_ids_unique() -> None:
    ids = [load(p)["id"] for p in CASES]
    assert len(ids) == len(set(ids))
