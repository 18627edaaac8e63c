"""The test plan and the thin-report check: which cheap test splits the listed hypotheses, and when to ask first."""

from __future__ import annotations

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.triage import tool_call, triage
from mldebug_mcp.triage import test_plan
from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.tree import load_tree

DETAILED = ("training loss goes to nan after about 300 steps with fp16 autocast and lr 1e-3; "
            "the gradient norm spikes just before it")


def _candidates(*pairs):
    causes = load_catalogue().causes
    return [test_plan.Candidate(causes[cause_id], weight) for cause_id, weight in pairs]


def test_a_test_that_halves_the_weight_is_worth_one_half_and_one_that_rules_out_nothing_is_left_out():
    two = _candidates(("double-softmax", 0.5), ("graph-broken", 0.5))
    tests = {t.ref: t for t in test_plan.cause_tests(two, tool_call)}
    assert {round(t.value, 3) for t in tests.values()} == {0.5}
    # Weight spread 0.9/0.1: confirming the big one rules out little on average.
    skewed = test_plan.cause_tests(_candidates(("double-softmax", 0.9), ("graph-broken", 0.1)), tool_call)
    assert {round(t.value, 3) for t in skewed} == {0.18}
    # A tree question whose answers no listed cause predicts or contradicts cannot split them.
    for t in test_plan.question_tests(load_tree(), two, set()):
        assert t.value > 0 and (t.confirms or t.rules_out)


def test_a_question_whose_observation_is_known_is_not_asked_again():
    listed = _candidates(("fp16-range", 0.5), ("double-softmax", 0.3), ("data-not-shuffled", 0.2))
    asked = {t.ref for t in test_plan.question_tests(load_tree(), listed, set())}
    known = {t.ref for t in test_plan.question_tests(load_tree(), listed, {"nan"})}
    assert "nan" in asked and "nan" not in known


def test_the_plan_is_short_and_ordered_by_merit():
    result = triage(DETAILED, detail="compact")
    assert 1 <= len(result.test_plan) <= 3
    merits = [t.value - test_plan.COST_PENALTY * next(r for r, label in test_plan.COSTS.values() if label == t.cost)
              for t in result.test_plan]
    assert merits == sorted(merits, reverse=True)
    listed = {h.cause for h in result.hypotheses}
    assert all(set(t.confirms) <= listed for t in result.test_plan)


def test_candidates_join_the_list_marked_by_source():
    plain = triage(DETAILED, detail="compact")
    tool_ids = [h.cause for h in plain.hypotheses]
    outsider = "label-encoding-wrong"
    assert outsider not in tool_ids
    result = triage(DETAILED, detail="compact", candidates=[outsider, tool_ids[0]])
    sources = {h.cause: h.source for h in result.hypotheses}
    assert sources[outsider] == "agent" and sources[tool_ids[0]] == "both"
    assert all(sources[c] == "tool" for c in tool_ids[1:])
    weights = [h.weight for h in result.hypotheses]
    assert weights == sorted(weights, reverse=True)


def test_an_unknown_candidate_is_an_error_naming_close_ids():
    with pytest.raises(UsageError, match="close ids: double-softmax"):
        triage(DETAILED, candidates=["double-sofmax"])
    with pytest.raises(UsageError, match="mldebug://causes"):
        triage(DETAILED, candidates=["zzzz"])


def test_a_thin_report_asks_tree_questions_and_a_detailed_one_does_not():
    thin = triage("my model doesn't learn", detail="compact")
    assert thin.thin and "short" in thin.thin
    assert 1 <= len(thin.questions) <= 3
    assert all(q.kind == "question" and q.ref in load_tree().nodes and q.answers for q in thin.questions)
    detailed = triage(DETAILED, detail="compact")
    assert detailed.thin is None and detailed.questions == []


def test_thin_reasons_are_stated():
    assert "flat" in test_plan.thin_reason([0.2, 0.18, 0.17], 2, 40)
    assert test_plan.thin_reason([0.6, 0.1, 0.05], 2, 40) is None
    assert "short" in test_plan.thin_reason([0.6, 0.1, 0.05], 0, 5)
