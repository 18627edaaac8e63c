"""analyze_curve on levels: healthy, nan, loss_zero, flat_from_start, plateau_at_chance, plateau,
and the handling of short, unsorted and repeated input.

Each observation FIRES on a curve made to show it and stays QUIET on others. Curves are built in
curves.py with math/random and fixed seeds; each test runs several seeds so that a verdict does
not hang on one lucky draw of the noise.
"""

from __future__ import annotations

import math

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.errors import UsageError
from mldebug_mcp.models.observations import OBSERVATIONS

from .curves import SEEDS, finding, healthy, healthy_shape, log_of, noisy, observations

# --- healthy curves: exactly slow_healthy, whatever the minibatch noise ---


@pytest.mark.parametrize("noise", [0.02, 0.08, 0.2, 0.35])
@pytest.mark.parametrize("seed", SEEDS)
def test_noisy_healthy_curve_is_only_slow_healthy_without_spikes(seed, noise):
    report = analyze_curve(log_of(loss=healthy(noise=noise, seed=seed)))
    assert report.observations == ["slow_healthy"] and report.spikes == []


@pytest.mark.parametrize("n", [12, 40, 200, 5000])
def test_healthy_curves_of_any_length(n):
    assert observations(noisy(lambda t: healthy_shape(t * 1000 / n), n=n, noise=0.05)) == ["slow_healthy"]


def test_healthy_curve_with_a_validation_loss_that_tracks_it():
    val = [(s, 1.1 * healthy_shape(s)) for s in range(0, 1000, 50)]
    assert observations(healthy(), val=val) == ["slow_healthy"]


def test_every_key_produced_is_in_the_shared_vocabulary():
    from mldebug_mcp.analysis.curve import IMPORTANCE

    assert set(IMPORTANCE) <= set(OBSERVATIONS)


# --- nan ---


@pytest.mark.parametrize("seed", SEEDS)
def test_nan_fires_at_the_first_non_finite_step_and_counts_them(seed):
    loss = [(s, v if s < 600 else math.nan) for s, v in healthy(seed=seed)]
    report = analyze_curve(log_of(loss=loss))
    assert report.observations == ["nan"]
    nan = finding(report, "nan")
    assert nan.step == 600 and nan.values["non_finite"] == 400 and nan.values["last_finite_step"] == 599


def test_inf_counts_as_non_finite_and_other_findings_still_run():
    loss = [(s, v if s % 100 != 50 else math.inf) for s, v in healthy()]
    report = analyze_curve(log_of(loss=loss))
    assert report.observations == ["nan"] and finding(report, "nan").step == 50


def test_nan_is_quiet_on_finite_curves():
    assert "nan" not in observations(healthy())


# --- loss_zero ---


@pytest.mark.parametrize("seed", SEEDS)
def test_loss_zero_fires_from_the_step_it_becomes_zero(seed):
    report = analyze_curve(log_of(loss=[(s, v if s < 300 else 0.0) for s, v in healthy(seed=seed)]))
    assert report.observations == ["loss_zero"] and finding(report, "loss_zero").step == 300


def test_loss_zero_fires_when_zero_most_of_the_run():
    loss = [(s, 0.0 if s > 20 and s % 10 else v) for s, v in healthy()]
    report = analyze_curve(log_of(loss=loss))
    assert "loss_zero" in report.observations and finding(report, "loss_zero").step == 21


def test_loss_zero_is_quiet_for_small_but_positive_losses():
    assert observations(noisy(lambda t: 1e-4 + 2 * math.exp(-t / 100), noise=0.05)) == ["slow_healthy"]


def test_a_single_zero_at_the_end_is_not_loss_zero():
    assert "loss_zero" not in observations(healthy()[:-1] + [(999, 0.0)])


# --- flat_from_start ---


@pytest.mark.parametrize("seed", SEEDS)
def test_flat_from_start_fires_on_a_noisy_constant(seed):
    assert observations(noisy(lambda t: 1.7, seed=seed)) == ["flat_from_start"]


def test_flat_from_start_is_quiet_when_the_loss_drops_within_the_first_logs():
    loss = noisy(lambda t: 1.25 + 1.2 * math.exp(-t / 3), noise=0.03)
    assert "flat_from_start" not in observations(loss)


def test_flat_from_start_is_quiet_on_healthy_and_on_slow_linear_descent():
    assert "flat_from_start" not in observations(healthy())
    assert observations(noisy(lambda t: 2.3 - 0.0005 * t, noise=0.05)) == ["slow_healthy"]


# --- plateau_at_chance ---


@pytest.mark.parametrize("seed", SEEDS)
def test_plateau_at_chance_with_num_classes(seed):
    loss = noisy(lambda t: math.log(10) + 1.2 * math.exp(-t / 40), noise=0.05, seed=seed)
    report = analyze_curve(log_of(loss=loss), num_classes=10)
    assert report.observations == ["plateau_at_chance"]
    assert finding(report, "plateau_at_chance").values["k"] == 10


def test_plateau_at_chance_guesses_k_from_the_level_and_says_so():
    report = analyze_curve(log_of(loss=noisy(lambda t: math.log(50257) + 2 * math.exp(-t / 40), noise=0.01)))
    chance = finding(report, "plateau_at_chance")
    assert chance.values["k"] == 50257 and "guessed" in chance.summary


def test_a_constant_loss_at_chance_is_both_flat_and_at_chance():
    assert observations(noisy(lambda t: math.log(10), noise=0.03)) == ["flat_from_start", "plateau_at_chance"]


def test_plateau_at_chance_is_quiet_away_from_ln_k():
    loss = noisy(lambda t: 1.25 + 1.2 * math.exp(-t / 50), noise=0.05)
    assert "plateau_at_chance" not in observations(loss)  # 1.25 is 14% from ln 3 and 10% from ln 4
    assert "plateau_at_chance" not in observations(loss, num_classes=10)
    assert "plateau_at_chance" not in observations(healthy(), num_classes=10)


def test_guessing_needs_a_close_match_but_num_classes_allows_five_percent():
    loss = noisy(lambda t: 1.03 * math.log(10) + math.exp(-t / 40), noise=0.02)
    assert "plateau_at_chance" not in observations(loss)
    assert "plateau_at_chance" in observations(loss, num_classes=10)


# --- plateau ---


@pytest.mark.parametrize("seed", SEEDS)
def test_plateau_fires_when_the_loss_falls_then_stalls_high(seed):
    report = analyze_curve(log_of(loss=noisy(lambda t: 1.25 + 1.2 * math.exp(-t / 50), noise=0.05, seed=seed)))
    assert report.observations == ["plateau"]
    plateau = finding(report, "plateau")
    assert 100 <= plateau.step <= 300 and plateau.values["level"] == pytest.approx(1.25, rel=0.03)


def test_plateau_is_quiet_when_the_loss_converges_low_or_keeps_falling():
    assert observations(noisy(lambda t: 0.1 + 2.2 * math.exp(-t / 60), noise=0.05)) == ["slow_healthy"]
    assert "plateau" not in observations(healthy())


# --- input handling ---


def test_short_logs_are_too_little_to_classify():
    report = analyze_curve(log_of(loss=[(s, 1.0 / (s + 1)) for s in range(9)]))
    assert report.observations == [] and "too little to classify" in report.notes[0]


def test_unsorted_and_duplicated_steps_are_cleaned_before_classifying():
    loss = healthy()
    shuffled = loss[500:] + [(s, 99.0) for s, _ in loss[:500]] + loss[:500]  # the later copies win
    assert observations(shuffled) == ["slow_healthy"]


def test_epoch_float_steps():
    loss = [(s / 100, v) for s, v in healthy()]
    report = analyze_curve(log_of(loss=[(s, v if s < 6 else math.nan) for s, v in loss]))
    assert report.observations == ["nan"] and finding(report, "nan").step == 6.0


def test_series_are_picked_by_name_and_can_be_given():
    log = log_of(train__loss=healthy(), val__loss=[(s, 1.1 * healthy_shape(s)) for s in range(0, 1000, 50)],
                 loss_scale=[(s, 65536.0) for s in range(1000)], eval__accuracy=[(0, 0.5)])
    report = analyze_curve(log)
    assert (report.loss_series, report.val_series) == ("train/loss", "val/loss")
    assert [s.name for s in report.series] == ["train/loss", "val/loss", "loss_scale", "eval/accuracy"]
    assert analyze_curve(log, loss="val/loss", val="train/loss").loss_series == "val/loss"


def test_num_classes_must_be_at_least_two():
    with pytest.raises(UsageError, match="num_classes must be 2 or more"):
        analyze_curve(log_of(loss=healthy()), num_classes=1)
