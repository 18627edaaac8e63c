"""evidence/thresholds.yaml against the sheets: the audit fires on another value or a missing source, and stays
quiet on the bundled content, on code, and on numbers stated for another reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from mldebug_mcp import content
from mldebug_mcp.content.audit import audit_content
from mldebug_mcp.content.audit.thresholds import (
    check_document,
    load_thresholds,
    matches_value,
    units,
)
from mldebug_mcp.services.evidence import load_store

TABLE = content.content_root() / "evidence" / "thresholds.yaml"


@pytest.fixture(scope="module")
def thresholds():
    found, problems = load_thresholds(TABLE, set(load_store().excerpts))
    assert problems == []
    return found


def _problems(text: str, thresholds) -> list[str]:
    return [f"{line}: {message}" for line, message in check_document(text, thresholds)]


def _messages(root: Path) -> list[str]:
    return [f"{p.path}:{p.line}: {p.message}" for p in audit_content(root)]


def test_the_table_covers_the_numbers_the_sheets_share(thresholds):
    keys = {t.key for t in thresholds}
    assert {"init-loss-ln-10", "update-to-weight-ratio", "adam-baseline-learning-rate",
            "gradcheck-relative-error-wrong", "gradcheck-relative-error-pass"} <= keys


def test_quiet_on_the_bundled_sheets(thresholds):
    root = content.content_root()
    for doc in sorted((root / "skill").glob("*.md")) + sorted((root / "refs").glob("*.md")):
        assert _problems(doc.read_text(encoding="utf-8"), thresholds) == [], doc.name


def test_the_bundled_sheets_do_state_them(thresholds):
    """The quiet result above means something: the patterns find the statements that are there."""
    skill = (content.content_root() / "skill" / "SKILL.md").read_text(encoding="utf-8")
    wrong = skill.replace("| 3e-4 |", "| 1e-3 |").replace("(2.30 for k = 10)", "(2.40 for k = 10)") \
        .replace("around 1e-3 (log10 near -3)", "around 1e-2 (log10 near -2)") \
        .replace("above 1e-2 wrong, 1e-7 or below fine", "above 1e-3 wrong, 1e-6 or below fine")
    assert wrong != skill
    found = {message.split("(")[-1].rstrip(")") for _, message in check_document(wrong, thresholds)}
    assert found == {"init-loss-ln-10", "update-to-weight-ratio", "adam-baseline-learning-rate",
                     "gradcheck-relative-error-wrong", "gradcheck-relative-error-pass"}


def test_fires_on_another_value(thresholds):
    text = "Keep the update-to-data ratio around 1e-2 [cs231n/update-to-value-ratio].\n"
    assert _problems(text, thresholds) == [(
        "1: states the update-to-weight ratio per layer as 1e-2; evidence/thresholds.yaml has 0.001 "
        "[cs231n/update-to-value-ratio] (update-to-weight-ratio)")]
    table = "| Init loss | about ln k (2.31 for k = 10) | [cs231n/loss-at-chance] |\n"
    assert [p.split(";")[0] for p in _problems(table, thresholds)] == [
        "1: states the cross-entropy loss at initialisation for 10 balanced classes (ln 10) as 2.31"]


def test_fires_on_a_statement_without_its_source(thresholds):
    text = "Some prose first.\n\nStart from Adam at 3e-4 as a first baseline. Then tune [karpathy-recipe/adam-is-safe].\n"
    assert _problems(text, thresholds) == [(
        "3: states the Adam learning rate for a first baseline (3e-4) without citing its source "
        "([karpathy-recipe/adam-is-safe]); see evidence/thresholds.yaml")]


def test_a_bare_source_key_counts_as_a_citation(thresholds):
    assert _problems("The update ratio should sit around −3 in log10 [karpathy-zero-to-hero].\n", thresholds) == []


@pytest.mark.parametrize("text", [
    "```python\nopt = torch.optim.Adam(model.parameters(), lr=1e-3)  # our default baseline\n```\n",
    "Use `Adam(lr=1e-3)` as the default baseline here [karpathy-recipe/adam-is-safe].\n",
    "On our benchmark setups, Adam at 1e-3 to 5e-3 reads -1.0 to -2.6 in the first steps.\n",
    "A raw U of 50 with a learning rate of 1e-3 needs tens of thousands of Adam steps.\n",
    "Softmax first cannot go below ln(1 + (k−1)/e), which is 1.461 for k = 10 (our derivation).\n",
    "Relative gradient errors near 1e-2 in float32 drop to 1e-8 in float64 [cs231n/gradcheck-double-precision].\n",
    "| Step size | Jones saw mean square about 1e-3 at LR 1e-2 in one run [jones] | |\n",
])
def test_quiet_on_code_and_on_numbers_stated_for_another_reason(text, thresholds):
    assert _problems(text, thresholds) == []


def test_units_split_sentences_and_keep_lines():
    text = "---\nname: x\n---\n# Head\n\nOne, e.g. this. Two\nruns on. Three.\n\n- item one\n- item two\n| a | b |\n"
    assert list(units(text)) == [(6, "One, e.g. this."), (6, "Two\nruns on."), (7, "Three."),
                                 (9, "- item one"), (10, "- item two"), (11, "| a | b |")]


@pytest.mark.parametrize(("stated", "ok"), [
    ("2.30", True), ("2.302", True), ("2.303", True), ("2.3", True), ("2.31", False), ("2.4", False),
    ("1e-3", True), ("0.001", True), ("-3", True), ("−3", True), ("1e-2", False), ("-2", False),
])
def test_matches_value(stated, ok):
    values = (2.302585,) if stated.startswith("2.") else (1e-3, -3.0)
    assert matches_value(stated, values) is ok


def test_audit_reports_a_sheet_that_disagrees(content_copy):
    pitfalls = content_copy / "refs" / "pitfalls.md"
    text = pitfalls.read_text(encoding="utf-8")
    old = "Adam at 3e-4 as a first baseline [karpathy-recipe/adam-is-safe]"
    assert old in text
    pitfalls.write_text(text.replace(old, "Adam at 1e-3 as a first baseline"), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    messages = [m for m in _messages(content_copy) if m.startswith("refs/pitfalls.md")]
    assert messages == [
        (f"refs/pitfalls.md:{line}: states the Adam learning rate for a first baseline (1e-3) without citing its "
         "source ([karpathy-recipe/adam-is-safe]); see evidence/thresholds.yaml"),
        (f"refs/pitfalls.md:{line}: states the Adam learning rate for a first baseline as 1e-3; "
         "evidence/thresholds.yaml has 0.0003 [karpathy-recipe/adam-is-safe] (adam-baseline-learning-rate)")]


def test_audit_reports_a_broken_table(content_copy):
    table = content_copy / "evidence" / "thresholds.yaml"
    table.write_text(table.read_text(encoding="utf-8") + (
        "made-up:\n  what: x\n  value: 1\n  sources: [cs231n/no-such-excerpt]\n  patterns: ['(NUM']\n"),
        encoding="utf-8")
    messages = [m for m in _messages(content_copy) if m.startswith("evidence/thresholds.yaml")]
    assert len(messages) == 2
    assert "threshold 'made-up': cites unknown excerpt [cs231n/no-such-excerpt]" in messages[0] + messages[1]
    assert "threshold 'made-up': bad pattern" in messages[0] + messages[1]
