"""Every rule: registered, documented, fires on its BAD snippet and fixture lines, quiet on GOOD code."""

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from mldebug_mcp.lint import rules as rules_package
from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.lint.registry import RULES
from mldebug_mcp.lint.rule import SEVERITIES, Rule
from mldebug_mcp.services.evidence import load_store

FIXTURES = Path(__file__).parent / "fixtures"
MARK = re.compile(r"#\s*(MLD\d{3})\b")


def _discovered() -> dict[str, type[Rule]]:
    found = {}
    for info in pkgutil.iter_modules(rules_package.__path__):
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        classes = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Rule) and v is not Rule
                   and v.__module__ == module.__name__]
        assert len(classes) == 1, f"{info.name} must define exactly one rule"
        assert info.name.startswith(classes[0].code.lower() + "_"), f"{info.name} does not match {classes[0].code}"
        found[classes[0].code] = classes[0]
    return found


ALL = _discovered()


def test_registry_lists_every_rule_module_sorted_by_code():
    assert [r.code for r in RULES] == sorted(ALL), "registry.RULES must list every module in rules/, by code"
    assert all(ALL[r.code] is r for r in RULES)


@pytest.mark.parametrize("rule", list(ALL.values()), ids=lambda r: r.code)
def test_rule_is_documented(rule):
    assert re.fullmatch(r"MLD\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.name)
    assert rule.severity in SEVERITIES
    assert rule.category in {"loss", "optimiser", "modes", "autograd", "shapes", "data", "numerics", "hygiene"}
    for attr in ("message", "why", "fix"):
        assert getattr(rule, attr).strip() and "\n" not in getattr(rule, attr), attr
    doc = rule.__doc__ or ""
    assert "What it does" in doc and "Why is this bad" in doc
    store = load_store()
    assert rule.evidence in store.excerpts or rule.evidence in store.sources, rule.evidence
    assert rule.node_types, "a rule must declare the node types it visits"


def _codes(source: str, code: str) -> list[int]:
    return [f.line for f in lint_source(source, "snippet.py", LintSettings(select=(code,))) if f.code == code]


@pytest.mark.parametrize("rule", list(ALL.values()), ids=lambda r: r.code)
def test_bad_snippet_fires_and_good_snippet_is_quiet(rule):
    assert _codes(rule.BAD, rule.code), f"{rule.code} BAD snippet does not fire"
    assert _codes(rule.GOOD, rule.code) == [], f"{rule.code} GOOD snippet fires"


@pytest.mark.parametrize("rule", list(ALL.values()), ids=lambda r: r.code)
def test_fixture_fires_exactly_at_the_marked_lines(rule):
    path = FIXTURES / f"{rule.code.lower()}.py"
    assert path.is_file(), f"missing fixture {path.name}"
    source = path.read_text(encoding="utf-8")
    marked = [n for n, line in enumerate(source.splitlines(), 1) if rule.code in MARK.findall(line)]
    assert marked, f"{path.name} marks no line with # {rule.code}"
    assert sorted(set(_codes(source, rule.code))) == marked
