"""The tests every batch of new triage causes gets: each has a real case, a textbook description of it puts
it in triage's top three, and a description of a different failure keeps it out of the top five. A test
module defines its TEXTBOOK and DECOY tables and binds the three tests this returns to module-level names."""

from __future__ import annotations

import pytest

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.catalogue import load_catalogue


def ranked_ids(symptom: str, n: int) -> list[str]:
    # triage returns DEFAULT_LIMIT hypotheses unless asked for more: ask for n, or a deeper look is cut to five
    return [h.cause for h in triage(symptom, limit=n).hypotheses[:n]]


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
        assert cause not in ranked_ids(decoy[cause], 5), ranked_ids(decoy[cause], 5)

    return (test_every_cause_is_in_the_catalogue_with_a_real_case,
            test_a_textbook_description_puts_the_cause_in_the_top_three,
            test_a_different_failure_keeps_the_cause_out_of_the_top_five)
