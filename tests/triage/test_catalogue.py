"""The bundled cause catalogue loads, is large enough, and every id it mentions resolves."""

from importlib import resources

import pytest
import yaml

from mldebug_mcp.diagnostics.checks import CHECK_IDS
from mldebug_mcp.errors import ContentError
from mldebug_mcp.lint.registry import RULES
from mldebug_mcp.services.evidence import load_store
from mldebug_mcp.triage.catalogue import load_catalogue, parse_catalogue
from mldebug_mcp.triage.validate import catalogue_problems


def _antipattern_ids() -> set[str]:
    text = (resources.files("mldebug_mcp.triage") / "data" / "antipatterns.yaml").read_text(encoding="utf-8")
    return {entry["id"] for entry in yaml.safe_load(text)}


def _problems(catalogue):
    return catalogue_problems(
        catalogue,
        excerpt_ids=set(load_store().excerpts),
        lint_codes={rule.code for rule in RULES},
        check_ids=set(CHECK_IDS),
        antipattern_ids=_antipattern_ids(),
    )


def test_bundled_catalogue_has_no_problems():
    assert _problems(load_catalogue()) == []


def test_priors_sum_to_one_over_the_catalogue():
    catalogue = load_catalogue()
    assert sum(catalogue.prior(c) for c in catalogue.causes.values()) == pytest.approx(1.0)


CATEGORIES = "a: {title: A, rate: 1.0}\n"
GOOD = """
- id: tiny-cause
  title: A cause for the tests
  category: a
  frequency: common
  summary: Something goes wrong and the run still looks fine to the eye.
  symptoms: [loss flat, loss stuck, nothing moves, no learning at all, the curve is a line]
  signals: [flat_from_start]
  test: {description: Overfit one batch of eight examples, tool: diagnose, ref: overfit_one_batch}
  predicts: {if_cause: the batch is not memorised, if_not: the batch is memorised quickly}
  fix: Do the right thing instead of the wrong one.
  evidence: [jones/assume-a-bug]
"""


def test_validator_reports_each_kind_of_broken_reference():
    bad = (GOOD.replace("[flat_from_start]", "[flat_from_start, no_such_observation]")
           .replace("jones/assume-a-bug", "jones/no-such-quote")
           .replace("ref: overfit_one_batch", "ref: no_such_check"))
    problems = _problems(parse_catalogue(CATEGORIES, {"causes/a.yaml": bad}))
    text = "\n".join(problems)
    assert "only 1 causes" in text
    assert "unknown observation 'no_such_observation'" in text
    assert "evidence 'jones/no-such-quote'" in text
    assert "ref 'no_such_check' is not a check id" in text


def test_validator_is_quiet_on_a_correct_cause_apart_from_the_size():
    problems = _problems(parse_catalogue(CATEGORIES, {"causes/a.yaml": GOOD}))
    assert problems == ["only 1 causes; the catalogue promises at least 40"]


def test_malformed_cause_names_the_file_and_the_cause():
    with pytest.raises(ContentError, match=r"causes/a.yaml: cause tiny-cause is malformed.*symptoms"):
        parse_catalogue(CATEGORIES, {"causes/a.yaml": GOOD.replace(
            "[loss flat, loss stuck, nothing moves, no learning at all, the curve is a line]", "[loss flat]")})


def test_duplicate_ids_are_refused():
    with pytest.raises(ContentError, match="defined twice"):
        parse_catalogue(CATEGORIES, {"causes/a.yaml": GOOD, "causes/b.yaml": GOOD})
