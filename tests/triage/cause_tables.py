"""The tests every batch of new triage causes gets: each has a real case, a textbook description of it puts
it in triage's top three, and a description of a different failure keeps it out of the top five (or in its
noise tail: kept_out). A test module defines its TEXTBOOK and DECOY tables and binds the three tests this
returns to module-level names."""

from __future__ import annotations

import pytest

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.catalogue import load_catalogue


def ranked_ids(symptom: str, n: int) -> list[str]:
    # triage returns DEFAULT_LIMIT hypotheses unless asked for more: ask for n, or a deeper look is cut to five
    return [h.cause for h in triage(symptom, limit=n).hypotheses[:n]]


def kept_out(symptom: str, cause: str, n: int = 5, noise: float = 0.05) -> bool:
    """`cause` is not in the symptom's top `n`, or is there only in the tail: under `noise` times the leading
    hypothesis's weight. Far below the leader, the order of the tail moves with every case added to the case
    base (a cause 0.0008 above another one), so that order is not what a decoy pins."""
    ranked = triage(symptom, limit=n).hypotheses[:n]
    found = [h for h in ranked if h.cause == cause]
    return not found or found[0].weight < noise * ranked[0].weight


def ranked_above(symptom: str, first: str, second: str) -> bool:
    """`first` is in the symptom's top 20 and `second` is either not there or below it."""
    ranked = ranked_ids(symptom, 20)
    return first in ranked and (second not in ranked or ranked.index(first) < ranked.index(second))


def cause_table_tests(textbook: dict[str, str], decoy: dict[str, str]):
    def test_every_cause_is_in_the_catalogue_with_a_real_case():
        catalogue = load_catalogue()
        assert set(textbook) == set(decoy)
        assert set(textbook) <= set(catalogue.causes)
        assert set(textbook) <= {case.cause for case in catalogue.cases}

    @pytest.mark.parametrize("cause", sorted(textbook))
    def test_a_textbook_description_puts_the_cause_in_the_top_three(cause):
        assert cause in ranked_ids(textbook[cause], 3), ranked_ids(textbook[cause], 5)

    @pytest.mark.parametrize("cause", sorted(decoy))
    def test_a_different_failure_keeps_the_cause_out_of_the_top_five(cause):
        assert kept_out(decoy[cause], cause), ranked_ids(decoy[cause], 5)

    return (test_every_cause_is_in_the_catalogue_with_a_real_case,
            test_a_textbook_description_puts_the_cause_in_the_top_three,
            test_a_different_failure_keeps_the_cause_out_of_the_top_five)
