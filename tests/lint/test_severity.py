"""Severity: what each level means, the threshold that hides findings below it (and the rules behind them),
and every output carrying each finding's severity: JSON as written, SARIF as error / warning / note."""

from __future__ import annotations

import json

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.lint.config import SEVERITIES, LintSettings, load_settings
from mldebug_mcp.lint.engine import active_rules
from mldebug_mcp.lint.registry import RULES
from mldebug_mcp.render.lint import as_json, sarif, summary
from mldebug_mcp.services.lint import lint, rules

# one finding of each severity: MLD070 (info), MLD001 (error), MLD003 (warning)
THREE = ("import torch\nimport torch.nn.functional as F\nstate = torch.load('m.pt')\n"
         "def f(z, y):\n    return F.cross_entropy(F.softmax(z, 1), y)\n"
         "def g(z, y):\n    return F.binary_cross_entropy(torch.sigmoid(z), y)\n")
EXPECTED = {"MLD070": "info", "MLD001": "error", "MLD003": "warning"}


def test_the_three_snippet_has_one_finding_of_each_severity():
    report = lint(source=THREE)
    assert {f.code: f.severity for f in report.findings} == EXPECTED
    assert report.min_severity == "info"


@pytest.mark.parametrize(("threshold", "kept"), [
    ("info", {"MLD070", "MLD001", "MLD003"}), ("warning", {"MLD001", "MLD003"}), ("error", {"MLD001"})])
def test_the_threshold_keeps_findings_at_or_above_it(threshold, kept):
    report = lint(source=THREE, severity=threshold)
    assert {f.code for f in report.findings} == kept
    assert report.counts == {code: 1 for code in kept}
    assert report.min_severity == threshold


def test_rules_below_the_threshold_are_not_run():
    settings = LintSettings(severity="warning")
    assert {r.severity for r in active_rules(settings)} == {"error", "warning"}
    assert len(active_rules(LintSettings())) == len(RULES)


def test_an_unreadable_file_is_an_error_so_no_threshold_hides_it():
    report = lint(source="def f(:\n", severity="error")
    assert [(f.code, f.severity) for f in report.findings] == [("MLD000", "error")]


def test_json_carries_every_severity_and_honours_the_threshold():
    assert {f["code"]: f["severity"] for f in json.loads(as_json(lint(source=THREE)))} == EXPECTED
    assert {f["severity"] for f in json.loads(as_json(lint(source=THREE, severity="warning")))} == {"error", "warning"}


def test_sarif_levels_map_error_warning_and_info_to_note():
    results = json.loads(sarif(lint(source=THREE), rules()))["runs"][0]["results"]
    assert {r["ruleId"]: r["level"] for r in results} == {"MLD070": "note", "MLD001": "error", "MLD003": "warning"}
    filtered = json.loads(sarif(lint(source=THREE, severity="error"), rules()))["runs"][0]
    assert [r["ruleId"] for r in filtered["results"]] == ["MLD001"]
    described = {r["id"]: r["defaultConfiguration"]["level"] for r in filtered["tool"]["driver"]["rules"]}
    assert described["MLD070"] == "note" and len(described) == len(RULES)  # every rule still described


def test_the_summary_names_a_threshold_above_info():
    assert summary(lint(source=THREE)) == "3 findings in 1 file"
    assert summary(lint(source=THREE, severity="warning")) == "2 findings in 1 file (severity warning and above)"


def test_pyproject_sets_the_threshold_and_the_caller_overrides_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mldebug]\nseverity = "warning"\n')
    (tmp_path / "train.py").write_text(THREE)
    assert load_settings(tmp_path).severity == "warning"
    assert {f.code for f in lint([str(tmp_path)]).findings} == {"MLD001", "MLD003"}
    assert {f.code for f in lint([str(tmp_path)], severity="info").findings} == set(EXPECTED)


@pytest.mark.parametrize("value", ['"high"', '"Warning"', '["error"]', "1"])
def test_a_bad_severity_is_a_usage_error(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f"[tool.mldebug]\nseverity = {value}\n")
    with pytest.raises(UsageError, match="severity must be one of info, warning, error"):
        load_settings(tmp_path)
    with pytest.raises(UsageError, match="severity must be one of"):
        lint(source="x = 1\n", severity="fatal")


def test_the_levels_are_ordered_most_severe_first():
    assert SEVERITIES == ("error", "warning", "info")
    assert LintSettings(severity="error").shows("error") and not LintSettings(severity="error").shows("warning")


# log_softmax into a cross-entropy changes no number (tests/lint/test_rule_claims.py runs it): MLD001 reports it as
# hygiene; log(softmax(z)) is the same loss until a probability underflows, a hazard (warning); softmax, an error.
MILD = ("import torch.nn.functional as F\n"
        "def hygiene(z, y):\n    return F.cross_entropy(F.log_softmax(z, 1), y)\n"
        "def hazard(z, y):\n    p = F.softmax(z, 1)\n    return F.cross_entropy(p.log(), y)\n"
        "def wrong(z, y):\n    return F.cross_entropy(F.softmax(z, 1), y)\n")


def test_a_hit_milder_than_its_rule_carries_its_own_severity_and_the_threshold_hides_it(tmp_path):
    found = {(f.line, f.severity) for f in lint(source=MILD).findings if f.code == "MLD001"}
    assert {severity for _, severity in found} == {"info", "warning", "error"}
    assert (3, "info") in found and (8, "error") in found
    loud = lint(source=MILD, severity="warning").findings
    assert {f.severity for f in loud if f.code == "MLD001"} == {"warning", "error"}
    path = tmp_path / "train.py"
    path.write_text(MILD, encoding="utf-8")
    assert {f.severity for f in lint(paths=[str(path)], severity="error").findings} == {"error"}
