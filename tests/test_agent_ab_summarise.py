"""The A/B results table (benchmarks/agent_ab/summarise.py): its interval arithmetic and the judge's verdicts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "agent_ab" / "summarise.py"


@pytest.fixture(scope="module")
def summarise():
    spec = importlib.util.spec_from_file_location("ab_summarise", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wilson_interval_matches_the_textbook_values(summarise):
    low, high = summarise.wilson(57, 60)
    assert (round(low, 3), round(high, 3)) == (0.863, 0.983)
    assert summarise.wilson(0, 0) == (0.0, 1.0)
    assert summarise.wilson(3, 3)[1] == 1.0 and summarise.wilson(3, 3)[0] < 0.5


def test_bootstrap_difference_over_tasks(summarise):
    same = {f"t{i}": {"none": [True, True, False], "tools": [True, True, False]} for i in range(10)}
    point, low, high = summarise.bootstrap_difference(same, "tools")
    assert point == 0.0 and low < 0.0 < high  # runs resampled within each task still vary
    better = {f"t{i}": {"none": [False, False, False], "tools": [True, True, True]} for i in range(10)}
    point, low, high = summarise.bootstrap_difference(better, "tools")
    assert point == 1.0 and low == 1.0 and high == 1.0
    mixed = {"a": {"none": [True] * 3, "tools": [True] * 3}, "b": {"none": [False] * 3, "tools": [True] * 3}}
    point, low, high = summarise.bootstrap_difference(mixed, "tools")
    assert point == 0.5 and low == 0.0 and high == 1.0  # with two tasks, a resample may hold only one


def test_the_judges_yes_read_back_as_a_boolean_still_counts(summarise):
    records = [
        {"task": "t1", "arm": "none", "fixed": True, "judge": {"cause": True, "harmful_advice": False}},
        {"task": "t1", "arm": "none", "fixed": False, "judge": {"cause": "partial", "harmful_advice": True}},
    ]
    row = next(line for line in summarise.table(records).splitlines() if line.startswith("| none"))
    assert "1/2 = 50%" in row and "| 1 / 1 of 2 | 1 |" in row
