"""The project index computes the costly fact families only when asked; the answers are those of computing
every file's facts first (issue 17: lint speed)."""

import ast
from pathlib import Path

import pytest

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.helpers.kinds.facts import fact_owner, fact_owners, project_facts
from mldebug_mcp.lint.helpers.modes_facts import mode_fact_keys, mode_facts
from mldebug_mcp.lint.project_facts import LocalFacts, RunFacts

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.py"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_each_lazy_family_says_beforehand_what_it_may_tell(path):
    source = path.read_text()
    ctx = build_context(str(path), source, ast.parse(source))
    assert set(mode_facts(ctx)) <= mode_fact_keys(ctx)
    assert {fact_owner(key) for key in project_facts(ctx)} <= fact_owners(ctx)


EVALUATE = """
import torch

def evaluate(model, loader):
    model.eval()
    return [model(x) for x in loader]

def build():
    return torch.nn.Softmax(dim=1)
"""


def test_local_facts_compute_a_family_when_one_of_its_keys_is_asked():
    ctx = build_context("metrics.py", EVALUATE, ast.parse(EVALUATE))
    facts = LocalFacts(ctx)
    assert facts.get("mode:other.evaluate") is None  # a key no family of this file can tell: nothing computed
    assert facts.get("mode:metrics.evaluate") == "eval"
    assert facts.untold() == {("kinds", "evaluate"), ("kinds", "build")}
    facts.get("build")
    assert not facts.untold()
    assert ctx.local_returns() == facts.known


def test_run_facts_give_the_last_telling_files_value_and_read_a_file_only_when_asked():
    told = [{"mode:a.f": "first"}, {}, {"b": "x"}]
    untold = [frozenset(), frozenset({("modes", "mode:a.f"), ("kinds", "Net")}), frozenset({("modes", "mode:a.f")})]
    full = {1: {"mode:a.f": "second", "Net/0": "softmax"}, 2: {"b": "x"}}
    read = []

    def tell_all(number):
        read.append(number)
        return full[number]

    facts = RunFacts(told, untold, tell_all)
    assert facts.get("b") == "x" and read == []
    assert facts.get("mode:a.f") == "second" and read == [2, 1]  # file 2 may tell it but does not: file 1's value
    assert facts.get("Net/0") == "softmax" and read == [2, 1]  # already read
    assert facts.get("Net") is None
    assert facts.get("zzz") is None
