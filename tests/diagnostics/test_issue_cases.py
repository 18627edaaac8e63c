"""Issue 18: healthy setups that are slow at Adam's default rate, or laid out as PyTorch documents
(logits (B, V, T) for CrossEntropyLoss), get no FAIL; the learning-rate search; the error verdict."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from mldebug_mcp.diagnostics.checks import run_checks
from mldebug_mcp.models.diagnose import DiagnosticReport
from mldebug_mcp.render.diagnose import report_summary, report_text

from . import builders as b
from . import issue_cases as ic


pytestmark = pytest.mark.usefixtures("single_thread")  # conftest.py


def statuses(report) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"]}


def check(report, check_id: str) -> dict:
    return next(c for c in report["checks"] if c["id"] == check_id)


@pytest.fixture(scope="module")
def slow_reports():
    return {name: run_checks(getattr(ic, name)()) for name in ("tanh_bce", "conv_gru")}


@pytest.mark.parametrize("name", ["tanh_bce", "conv_gru"])
def test_slow_is_not_broken(slow_reports, name):
    report = slow_reports[name]
    assert "fail" not in statuses(report).values(), {c["id"]: c["summary"] for c in report["checks"]}
    overfit = check(report, "overfit_one_batch")
    assert overfit["status"] == "pass" and overfit["summary"].startswith("needs lr")
    assert overfit["measured"]["working_lr_factor"] > 1
    # the spec's own rate is reported, and the search stayed a bounded share: a handful of short runs
    assert any(d.startswith("lr 0.0003:") for d in overfit["details"])
    assert len(overfit["measured"]["search"]) <= 3
    assert all(run["steps_run"] <= 50 for run in overfit["measured"]["search"])
    dependence = check(report, "input_dependence")
    assert dependence["status"] == "pass" and dependence["measured"]["lr_factor"] > 1
    # the shared real-batch runs are timed under overfit_one_batch, though input_dependence ran them first
    assert overfit["seconds"] > 0.05


def test_a_setup_that_learns_at_its_own_rate_searches_nothing():
    report = run_checks(b.classifier(), only=["overfit_one_batch", "input_dependence"])
    overfit = check(report, "overfit_one_batch")
    assert overfit["status"] == "pass" and "search" not in overfit["measured"]
    assert check(report, "input_dependence")["measured"]["lr_factor"] == 1.0


@pytest.fixture(scope="module")
def lm_reports():
    return {shift: run_checks(ic.gru_lm(shift=shift)) for shift in (True, False)}


def test_logits_in_the_layout_cross_entropy_documents_are_read_as_such(lm_reports):
    report = lm_reports[True]
    found = statuses(report)
    assert found["batch_sanity"] == found["odd_shapes"] == found["causality"] == "pass"
    causality = check(report, "causality")
    assert "inputs along dim 1, outputs along dim 2" in causality["summary"]
    assert "causal by construction" in " ".join(causality["details"])
    assert "fail" not in found.values(), {c["id"]: c["summary"] for c in report["checks"] if c["status"] == "fail"}


def test_the_unshifted_targets_are_still_named_by_batch_sanity(lm_reports):
    report = lm_reports[False]
    sanity = check(report, "batch_sanity")
    assert sanity["status"] == "fail" and "not shifted" in sanity["summary"]
    assert statuses(report)["odd_shapes"] == statuses(report)["causality"] == "pass"


class BidirectionalLM(ic.GruLM):
    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(32, 32, batch_first=True, bidirectional=True)


def test_a_bidirectional_recurrent_lm_is_named_as_the_leak():
    result = run_checks(ic.gru_lm(model=BidirectionalLM()), only=["causality"])["checks"][0]
    assert result["status"] == "fail" and "bidirectional recurrent layer gru" in result["summary"]


def test_input_dependence_is_inconclusive_when_real_data_does_not_learn_either():
    frozen_rate = b.classifier(optimizer=lambda p: torch.optim.SGD(p, lr=0.0))
    result = run_checks(frozen_rate, only=["input_dependence"])["checks"][0]
    assert result["status"] == "skipped" and result["summary"].startswith("inconclusive")


def test_overfit_fails_only_when_no_rate_moves_the_loss():
    class Constant(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 4)

        def forward(self, x):
            return self.fc(x) * 0 + self.fc.bias.detach()  # nothing trainable reaches the output

    result = run_checks(b.classifier(model=Constant()), only=["overfit_one_batch"])["checks"][0]
    assert result["status"] == "fail" and result["summary"].startswith("no rate moves the loss")
    assert len(result["measured"]["search"]) >= 2


# --- the error verdict -------------------------------------------------------------------------------

def test_a_check_that_raises_is_an_error_not_a_failure(monkeypatch):
    from mldebug_mcp.diagnostics.checks import activations

    def broken(_session):
        raise ZeroDivisionError("the check's own arithmetic")

    monkeypatch.setattr(activations, "run", broken)
    report = run_checks(b.classifier(), only=["activations", "gradient_flow"])
    result = check(report, "activations")
    assert result["status"] == "error" and "ZeroDivisionError" in result["summary"]
    assert any("test_issue_cases.py" in f for f in result["error"]["frames"])
    assert report["status"] == "error"  # counted apart: not fail, and not a pass either
    model = DiagnosticReport.model_validate({"target": "t", **report})
    assert model.counts() == {"error": 1, "pass": 1}
    text = report_text(model)
    assert "ERR   activations" in text and "1 error, 1 pass" in text
    assert "ERR" in report_summary(model)


def test_a_failure_outranks_an_error_and_each_check_reports_its_time():
    spec = b.classifier()
    spec["model"] = nn.Sequential(spec["model"][0], nn.ReLU(), nn.Linear(32, 3))  # 3 scores for 4 classes
    report = run_checks(spec, only=["batch_sanity"])
    assert report["status"] == "fail"
    assert all(isinstance(c["seconds"], float) for c in report["checks"])
    text = report_text(DiagnosticReport.model_validate({"target": "t", **report}))
    assert " s  " in text.splitlines()[2]


def test_the_cli_exit_codes_keep_pass_warn_fail_and_add_one_for_errors():
    from mldebug_mcp.cli.diagnose import exit_code

    assert [exit_code(s) for s in ("pass", "warn", "fail", "error")] == [0, 0, 1, 3]


def test_the_suite_on_a_slow_setup_costs_at_most_three_times_two_hundred_steps():
    """Counted in training steps (the unit of the target, free of machine load): the user's run, the
    search and the baselines together, plus the few steps of the other checks."""
    calls = []

    def counting_step(model, batch, optimizer):
        calls.append(1)
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(batch[0]), batch[1])
        loss.backward()
        optimizer.step()
        return loss

    report = run_checks(ic.tanh_bce(train_step=counting_step))
    assert "fail" not in statuses(report).values()
    assert len(calls) <= 500, len(calls)
