"""Causes that crowded triage's top three on real threads whose words did not support them (issue 19): the
`_zero` concept fired on the 0 that opens every decimal ("lr 0.001"), lending zero-loss wording to threads that
report no zero at all."""

from __future__ import annotations

import pytest

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.text import tokens


def _ranked(text: str) -> list[str]:
    return [h.cause for h in triage(text, limit=10).hypotheses]


def test_a_real_metric_bug_still_ranks():
    text = ("My validation accuracy is computed with correct += (outputs == labels).sum() and divided by len(loader) "
            "instead of len(dataset), so the accuracy reported is wrong even though loss decreases normally.")
    assert "metric-bug" in _ranked(text)[:3]


def test_a_real_seed_variance_still_ranks():
    text = ("I trained the same config twice with a different random seed and the final accuracy differs by 3 points "
            "between runs; with the seed fixed it is the same every time.")
    assert "seed-variance" in _ranked(text)[:3]


@pytest.mark.parametrize("text", ["lr 0.001", "dropout 0.5 and weight decay 0.01", "10 epochs", "0.5"])
def test_zero_concept_ignores_decimals(text):
    assert "_zero" not in tokens(text)


@pytest.mark.parametrize("text", ["loss is 0.", "loss 0.000", "accuracy is zero", "epoch 0: loss 2.3"])
def test_zero_concept_still_reads_a_zero_value(text):
    assert "_zero" in tokens(text)


def test_a_zero_loss_still_ranks_masked_labels():
    assert "labels-all-masked" in _ranked("lm loss is 0.000 after the first step; all the labels are masked")[:3]
