"""The in-process Python API for notebooks: same checks, live objects, a report render.diagnose prints."""

from __future__ import annotations

import pytest
import torch.nn as nn

from mldebug_mcp import DebugSpec, DiagnosticReport, UsageError, diagnose
from mldebug_mcp.render.diagnose import report_text

from . import builders as b


def test_diagnose_accepts_keyword_fields_and_returns_a_report():
    report = diagnose(**b.classifier(head=nn.Softmax(dim=-1)), checks=["loss_at_init"])
    assert isinstance(report, DiagnosticReport) and report.status == "fail"
    text = report_text(report)
    assert "FAIL  loss_at_init" in text and "karpathy-recipe/verify-loss-at-init" in text


def test_diagnose_accepts_a_debugspec_object():
    report = diagnose(DebugSpec(**b.regression()), checks=["odd_shapes", "loss_at_init"])
    assert report.status == "pass" and report.target == "<in-process>"
    assert [c.id for c in report.checks] == ["loss_at_init", "odd_shapes"]


@pytest.mark.parametrize("kwargs, message", [
    ({"spec": b.classifier(), "task": "binary"}, "not both"),
    ({"steps": 3}, "at least 10"),
    ({"checks": ["vibes"]}, "unknown check"),
    ({"task": "classification"}, "lacks"),
])
def test_bad_api_calls_raise_usage_errors(kwargs, message):
    with pytest.raises(UsageError, match=message):
        diagnose(**kwargs)
