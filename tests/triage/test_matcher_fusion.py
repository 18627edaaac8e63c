"""How the matcher's fits are combined (standardised over the causes) and how identifiers are split into words."""

import pytest

from mldebug_mcp.triage import matcher
from mldebug_mcp.triage.description import Description
from mldebug_mcp.triage.snapshot import bundled
from mldebug_mcp.triage.text import stem, tokens


def test_standardising_ignores_the_scale_and_offset_of_a_fit():
    values = [0.1, 0.4, 0.05, 0.3]
    scaled = [7.0 * v + 3.0 for v in values]
    assert matcher.standardised(scaled) == pytest.approx(matcher.standardised(values))
    assert sum(matcher.standardised(values)) == pytest.approx(0.0)


def test_a_fit_that_is_alike_for_every_cause_is_no_evidence():
    assert matcher.standardised([0.2, 0.2, 0.2]) == [0.0, 0.0, 0.0]
    assert matcher.standardised([]) == []


def test_the_text_ranking_does_not_depend_on_the_scale_of_the_cosines(monkeypatch):
    """Shrinking every cosine (as a longer report does) leaves the order of the causes by text fit unchanged."""
    description = Description.read("after I switched to fp16 the loss becomes nan after a few hundred steps")
    index = bundled().index
    before = index.fit(description)
    original = matcher.cosines
    monkeypatch.setattr(matcher, "cosines", lambda *a: {k: v / 3.0 for k, v in original(*a).items()})
    original_case_fits = matcher.CauseIndex.case_fits
    monkeypatch.setattr(matcher.CauseIndex, "case_fits", lambda self, q: [v / 3.0 for v in original_case_fits(self, q)])
    after = index.fit(description)
    order = sorted(before, key=lambda c: -before[c].score)
    assert sorted(after, key=lambda c: -after[c].score)[:10] == order[:10]
    assert after[order[0]].score == pytest.approx(before[order[0]].score)


def test_the_words_of_a_snake_case_identifier_are_tokens_too():
    found = tokens("my cur_target tensor and the loss_scale")
    assert {"cur_target", stem("target"), "loss_scale", stem("loss"), stem("scale")} <= set(found)
    assert tokens("fp16") == ["fp16"]  # an identifier without underscores stays one token


def test_a_category_whose_causes_fit_lifts_its_members():
    """category_fits: raising one cause's text fit raises the family score of its siblings, not of other categories."""
    from mldebug_mcp.triage import ranking

    catalogue = bundled().catalogue
    by_category: dict[str, list[str]] = {}
    for cause in catalogue.causes.values():
        by_category.setdefault(cause.category, []).append(cause.id)
    data, other = by_category["data"], by_category["loss"]
    text = {cause_id: 0.0 for cause_id in catalogue.causes}
    text[data[0]] = 1.0
    before = ranking.category_fits(catalogue, text)
    text[data[0]] = 5.0
    after = ranking.category_fits(catalogue, text)
    assert after[data[1]] > before[data[1]]
    assert after[data[1]] > after[other[0]]
    assert ranking.category_fits(catalogue, {}) == {}
