"""Observations a description denies ("there's no NaN either") are not read as reported, and the why line
never cites a symptom phrasing that disagrees with the description on an observation."""

from __future__ import annotations

from pathlib import Path

import pytest

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.signals import contradicts, read_observations, read_stances

# The catalogue's fp16-range phrasing that a NaN report used to be told it "reads like".
NO_NAN_PHRASE = "with autocast the loss doesn't go down at all, but there's no nan either"


@pytest.mark.parametrize("text, reported, denied", [
    (NO_NAN_PHRASE, ["flat_from_start"], ["nan"]),
    ("my loss becomes nan after 300 steps", ["nan"], []),
    ("no inf or nan, the accuracy just stays at 10%", ["plateau_at_chance"], ["nan"]),
    ("I never get NaN", [], ["nan"]),
    ("Not sure why the loss is nan", ["nan"], []),  # the denial is about something else
    ("it doesn't crash, but the loss is nan", ["nan"], ["crash"]),
    ("loss doesn't explode but oscillates", ["oscillates"], ["explodes"]),
    ("no nan at first, then at step 900 the loss becomes nan", ["nan"], []),  # one mention reports it
])
def test_denied_observations_are_told_apart(text, reported, denied):
    assert read_stances(text) == (reported, denied)
    assert read_observations(text) == reported


def test_stances_contradict_when_one_reports_what_the_other_denies():
    assert contradicts((["nan"], []), ([], ["nan"]))
    assert contradicts(([], ["nan"]), (["nan", "plateau"], []))
    assert not contradicts((["nan"], []), (["nan"], []))
    assert not contradicts(([], ["nan"]), ([], ["nan"]))


def _why(result, cause: str) -> str:
    return next(h.why for h in result.hypotheses if h.cause == cause)


@pytest.mark.parametrize("symptom", ["with autocast the loss goes nan", "the loss is nan with autocast after some steps"])
def test_a_nan_report_is_never_said_to_read_like_a_phrasing_without_nan(symptom):
    result = triage(symptom, limit=10)
    assert "fp16-range" in [h.cause for h in result.hypotheses]
    assert all("no nan" not in h.why.lower() for h in result.hypotheses)


def test_a_stated_nan_observation_also_keeps_the_no_nan_phrasing_out():
    result = triage("with autocast the loss doesn't go down", observations=["nan"], limit=10)
    assert "no nan" not in _why(result, "fp16-range").lower()


def test_a_report_that_denies_nan_may_be_told_it_reads_like_the_no_nan_phrasing():
    result = triage("with autocast the loss doesn't go down at all and there is no nan", limit=10)
    assert NO_NAN_PHRASE in _why(result, "fp16-range")
    assert "nan" not in result.observations


@pytest.mark.parametrize("text, reported", [
    ("the step loss spikes to 1e6. It looks like exploding gradients to me", ["spike_slow_recovery"]),
    ("I think the gradients explode, but honestly the loss just stays at 2.30", ["flat_from_start", "plateau",
                                                                                 "plateau_at_chance"]),
    ("could it be a NaN somewhere?", []),
    ("the loss explodes after 300 steps", ["explodes"]),  # seen, not guessed: still read
    ("maybe the lr is too high: the loss explodes at step 300", ["explodes"]),  # the guess ends at the colon
])
def test_a_guess_at_the_cause_is_not_read_as_an_observation(text, reported):
    """A user's theory ("looks like exploding gradients to me") says what they suspect, not what they saw: read
    as an observation it put exploding-gradients first on the A/B benchmark's t08, a data bug."""
    assert read_observations(text) == reported


@pytest.mark.parametrize("text, clean", [
    ("The checkpoint loads with `strict=True`, no missing or unexpected keys", True),
    ("load_state_dict printed <All keys matched successfully>", True),
    ("eval | loaded model.pt (missing keys: 0, unexpected: 0)", True),
    ("I had to pass strict=False, it complained about missing keys", False),
    ("missing keys: ['fc.weight']", False),
])
def test_a_clean_strict_load_is_read(text, clean):
    assert ("weights_load_clean" in read_observations(text)) is clean


# the A/B benchmark's t17 complaint, in the user's words
CLEAN_LOAD_REPORT = (Path(__file__).parents[2] / "benchmarks" / "agent_ab" / "tasks" / "t17-ticket-vocab-mismatch"
                     / "COMPLAINT.md").read_text(encoding="utf-8")


def test_a_clean_strict_load_argues_against_an_unrestored_checkpoint():
    """The A/B benchmark's t17 (a vocabulary rebuilt at evaluation): the user reports a strict, clean load, and
    triage ranked checkpoint-not-restored first on the words of that very report (before weights_load_clean)."""
    told = triage(CLEAN_LOAD_REPORT, limit=20)
    assert "weights_load_clean" in told.observations
    assert told.hypotheses[0].cause != "checkpoint-not-restored"
    assert "weights_load_clean argues against it" in _why(told, "checkpoint-not-restored")


@pytest.mark.parametrize("text, explodes", [
    ("the training loss goes up with the crack weight (0.089 at 1, 0.14 at 12)", False),  # runs compared
    ("the loss increases when I use a larger batch", False),
    ("after 300 steps the loss goes up to 1e4", True),
    ("the loss increases steadily after epoch 3", True),
])
def test_a_loss_compared_across_settings_is_not_an_explosion(text, explodes):
    """The A/B benchmark's t22: 'the training loss goes up with the crack weight' compares runs, and reading it as
    `explodes` put exploding-gradient and rebalancing causes ahead of the broadcast bug."""
    assert ("explodes" in read_observations(text)) is explodes


@pytest.mark.parametrize("text, at_chance", [
    ("epoch 0 rmse_k 1.9118 mae_k 1.6127 ... epoch 1 rmse_k 2.3039", False),  # regression metrics (A/B t20)
    ("lr 0.693 looked fine, the val mse stalls", False),
    ("the loss is stuck at 2.30 with 10 classes", True),
    ("val loss 0.693 from the first epoch", True),
])
def test_a_chance_level_number_is_a_cross_entropy_not_another_quantity(text, at_chance):
    assert ("plateau_at_chance" in read_observations(text)) is at_chance


def test_a_sentinel_value_in_the_data_points_at_corrupt_data():
    """A/B task t08: once the agent had found -9999 in the training CSV and said so, triage still ranked Adam's
    epsilon, exploding gradients and the learning rate ahead of corrupt data."""
    told = triage("Loss spikes to 1e6 every few hundred steps with Adam lr 0.002; I found -9999 values in the "
                  "power column of the training CSV")
    assert told.hypotheses[0].cause == "corrupt-or-nan-data"
