"""The engine's shortcuts (Rule.applies, Rule.call_names) only skip what a rule would not report."""

import ast

import pytest

from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.lint.registry import RULES
from mldebug_mcp.lint.rule import Rule


def _findings(source: str) -> list[tuple]:
    return [(f.code, f.line, f.col, f.message) for f in lint_source(source, "snippet.py")]


def _without_shortcuts(monkeypatch) -> None:
    monkeypatch.setattr(Rule, "applies", lambda self, ctx: True)
    for rule in RULES:
        monkeypatch.setattr(rule, "applies", Rule.applies)
        monkeypatch.setattr(rule, "call_names", None)


@pytest.mark.parametrize("rule", [r for r in RULES if r.call_names is not None or r.applies is not Rule.applies],
                         ids=lambda r: r.code)
def test_shortcuts_keep_every_finding_of_the_examples(rule, monkeypatch):
    sources = [rule.BAD, rule.GOOD]
    fast = [_findings(s) for s in sources]
    _without_shortcuts(monkeypatch)
    assert fast == [_findings(s) for s in sources]


def test_a_call_is_matched_by_the_name_it_was_imported_as():
    source = ("import torch\nfrom torch import log as ln\nimport torch.nn.functional as F\n"
              "def f(x):\n    return ln(F.softmax(x, dim=1))\n")
    assert "MLD060" in {f.code for f in lint_source(source)}


def test_call_names_name_calls():
    for rule in RULES:
        if rule.call_names is not None:
            assert ast.Call in rule.node_types, rule.code
            assert callable(rule.call_names) or all(isinstance(n, str) and n for n in rule.call_names), rule.code
