"""The judged precision samples stay readable by benchmarks/lint_precision_report.py, and its estimates are
the ones it claims: a Wilson interval and a stratified share weighted by each rule's count."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "lint_precision_report.py"
spec = importlib.util.spec_from_file_location("lint_precision_report", SCRIPT)
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
SAMPLES = sorted(report.ROOT.glob("*.yaml"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_every_judged_finding_has_a_rule_and_a_verdict(path: Path) -> None:
    findings, strata = report.load(path)
    assert findings
    for finding in findings:
        assert str(finding["code"]).startswith("MLD")
        assert str(finding["verdict"]).lower() in {"true", "false", "unsure"}
    if strata:  # a stratified sample draws only from rules the population holds
        assert {f["code"] for f in findings} <= set(strata)


def test_stratified_share_weights_each_rule_by_its_count() -> None:
    findings = [{"code": "A", "verdict": True}, {"code": "A", "verdict": False},
                {"code": "B", "verdict": True}, {"code": "B", "verdict": "unsure"}]
    point, low, high = report.stratified(findings, {"A": 300, "B": 100})
    assert point == pytest.approx((300 * 0.5 + 100 * 1.0) / 400)
    assert low <= point <= high


def test_wilson_interval_brackets_the_share() -> None:
    low, high = report.wilson(22, 64)
    assert low == pytest.approx(0.239, abs=0.001) and high == pytest.approx(0.466, abs=0.001)
    assert report.wilson(0, 0) == (0.0, 1.0)
