"""The sweep analysis on constructed sweeps with known answers: a real effect hidden under seed noise,
a null, the multiple-comparison trap (20 settings, one wins by chance), refs/sweeps.md's worked
example, and the design warnings (seeds not shared, few seeds, several settings changed, crashes)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from mldebug_mcp.analysis.sweep_columns import runs_of_table
from mldebug_mcp.analysis.sweep_report import analyze_sweep
from mldebug_mcp.analysis.sweep_table import RawTable
from mldebug_mcp.errors import UsageError


def table(rows: list[dict[str, object]]) -> RawTable:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return RawTable(source="sweep.csv", format="csv", columns=columns,
                    rows=[{k: "" if v is None else str(v) for k, v in row.items()} for row in rows])


def analyse(rows, resamples: int = 400, **options):
    factor, baseline = options.pop("factor", None), options.pop("baseline", None)
    return analyze_sweep(runs_of_table(table(rows), factor=factor, **options), factor=factor, baseline=baseline,
                         resamples=resamples)


def synthetic(rng: random.Random, effects: dict[str, float], seeds: int, seed_sd: float, noise_sd: float,
              base: float = 70.0) -> list[dict[str, object]]:
    """Each value: base + the seed's luck (shared by every arm) + the arm's true effect + run noise."""
    luck = [rng.gauss(0.0, seed_sd) for _ in range(seeds)]
    return [{"arm": arm, "seed": seed, "val_acc": base + luck[seed] + effect + rng.gauss(0.0, noise_sd)}
            for seed in range(seeds) for arm, effect in effects.items()]


def by_arm(report):
    return {c.arm: c for c in report.comparisons}


# --- refs/sweeps.md's worked example, every number of its summary table ---------------------------------------
WORKED = {"2024": [70.0, 69.5, 71.0, 69.0], "4096": [62.0, 75.0, 63.2, 61.5], "8192": [66.0, 65.0, 67.1, 65.2],
          "9000": [73.0, 72.0, 74.2, 72.5]}
WORKED_ARMS = ["baseline", "A", "B", "C"]


@pytest.fixture
def worked():
    rows = [{"arm": arm, "seed": seed, "val_acc": value} for seed, values in WORKED.items()
            for arm, value in zip(WORKED_ARMS, values)]
    return analyse(rows)


def test_worked_example_z_scores_and_t_match_the_sheet(worked):
    sheet = {"A": (70.38, -0.23, 1.33, -0.35), "B": (68.88, 1.06, 0.97, 2.18), "C": (67.05, -0.79, 0.28, -5.65),
             "baseline": (67.75, -0.04, 0.39, -0.18)}
    for arm in worked.arms:
        mean, mean_z, sd_z, t = sheet[arm.label]
        assert (round(arm.mean, 2), round(arm.mean_z, 2), round(arm.sd_z, 2), round(arm.t_z, 2)) == \
            pytest.approx((mean, mean_z, sd_z, t), abs=0.006), arm.label


def test_worked_example_paired_view_matches_the_sheet_and_a_hand_computation(worked):
    comparisons = by_arm(worked)
    for arm, sheet_t in (("A", 0.76), ("B", 23.5), ("C", -5.7)):
        column = WORKED_ARMS.index(arm)
        differences = [values[column] - values[0] for values in WORKED.values()]
        hand = statistics.fmean(differences) / (statistics.stdev(differences) / math.sqrt(4))
        assert comparisons[arm].t == pytest.approx(hand, rel=1e-12)
        assert round(comparisons[arm].t, 2 if abs(sheet_t) < 1 else 1) == pytest.approx(sheet_t)
        assert [d.difference for d in comparisons[arm].differences] == pytest.approx(differences)
    assert comparisons["A"].verdict == "within_noise" and comparisons["A"].mean_difference == pytest.approx(2.625)
    assert any("seed 4096 carries the mean" in note for note in comparisons["A"].notes)  # the lucky-seed pattern
    assert comparisons["B"].verdict == "better" and comparisons["B"].wins == 4
    assert comparisons["C"].verdict == "worse" and comparisons["C"].wins == 0
    assert worked.baseline == "baseline" and worked.seed_column == "seed"


# --- known effect, known null -------------------------------------------------------------------------------
def test_a_small_real_effect_under_large_seed_noise_is_found_by_pairing_and_missed_without():
    rows = synthetic(random.Random(5), {"baseline": 0.0, "new": 0.8}, seeds=6, seed_sd=3.0, noise_sd=0.3)
    paired = by_arm(analyse(rows))["new"]
    assert paired.method == "paired" and paired.verdict == "better"
    assert paired.ci_low > 0 and paired.ci_high > paired.ci_low
    assert 0.3 < paired.mean_difference < 1.3
    # the same runs without their seeds: the seed-to-seed spread (sd 3) swamps the 0.8
    unseeded = [{k: v for k, v in row.items() if k != "seed"} for row in rows]
    unpaired = analyse(unseeded)
    assert by_arm(unpaired)["new"].method == "unpaired" and by_arm(unpaired)["new"].verdict == "within_noise"
    assert any("no seed column" in w for w in unpaired.warnings)


def test_lower_is_better_metric_turns_a_drop_into_better():
    rows = synthetic(random.Random(8), {"baseline": 0.0, "new": -0.5}, seeds=6, seed_sd=1.0, noise_sd=0.1)
    rows = [{"arm": r["arm"], "seed": r["seed"], "val_loss": r["val_acc"] / 100} for r in rows]
    report = analyse(rows)
    assert report.higher_is_better is False and by_arm(report)["new"].verdict == "better"
    assert by_arm(report)["new"].wins == 6


def test_nulls_are_called_effects_about_alpha_of_the_time():
    """200 two-arm sweeps with no effect: the share called better or worse estimates the false-positive
    rate, which a calibrated paired t-test holds near alpha = 0.05."""
    rng = random.Random(21)
    false = sum(by_arm(analyse(synthetic(rng, {"baseline": 0.0, "same": 0.0}, 5, 2.0, 0.5), resamples=200))["same"]
                .verdict != "within_noise" for _ in range(200))
    assert 2 <= false <= 20


def test_multiple_comparison_trap_twenty_settings_one_wins_by_chance():
    """20 settings that change nothing, 4 seeds: some setting reaches p < 0.05 alone, and Holm's
    correction keeps it within noise and says why."""
    report = analyse(synthetic(random.Random(13), {"baseline": 0.0, **{f"aug{i:02d}": 0.0 for i in range(20)}},
                               seeds=4, seed_sd=1.5, noise_sd=0.5), resamples=200)
    winner = min(report.comparisons, key=lambda c: c.p)
    assert winner.p < 0.05  # the trap: alone, it looks like a win
    assert winner.p_adjusted >= 0.05 and winner.verdict == "within_noise"
    assert all(c.verdict == "within_noise" for c in report.comparisons)
    assert "Holm-Bonferroni over 20 comparisons" in report.correction
    assert any("multiple comparisons" in w and winner.arm in w for w in report.warnings)


def test_holm_holds_the_family_wise_error_where_uncorrected_tests_do_not():
    rng = random.Random(99)
    corrected = uncorrected = 0
    for _ in range(40):
        report = analyse(synthetic(rng, {"baseline": 0.0, **{f"s{i}": 0.0 for i in range(20)}}, 4, 1.5, 0.5),
                         resamples=200)
        corrected += any(c.verdict != "within_noise" for c in report.comparisons)
        uncorrected += any(c.p < 0.05 for c in report.comparisons)
    assert corrected <= 6 and uncorrected >= 15


def test_a_real_effect_among_twenty_nulls_survives_the_correction():
    effects = {"baseline": 0.0, **{f"aug{i:02d}": 0.0 for i in range(19)}, "real": 1.5}
    report = analyse(synthetic(random.Random(4), effects, seeds=8, seed_sd=2.0, noise_sd=0.3), resamples=200)
    verdicts = {c.arm: c.verdict for c in report.comparisons}
    assert verdicts.pop("real") == "better"
    assert set(verdicts.values()) == {"within_noise"}


# --- warnings ------------------------------------------------------------------------------------------------
def test_seeds_not_shared_and_fewer_than_three_seeds_are_warned():
    rows = [{"arm": "baseline", "seed": s, "acc": 70 + s} for s in (1, 2, 3)]
    rows += [{"arm": "new", "seed": s, "acc": 71 + s} for s in (2, 3)]
    report = analyse(rows)
    comparison = by_arm(report)["new"]
    assert comparison.shared_seeds == ["2", "3"]
    assert any("does not share all seeds" in w and "missing: 1" in w for w in report.warnings)
    assert any("fewer than 3 seeds" in w and "'new'" in w for w in report.warnings)


def test_several_settings_changed_at_once_is_a_confound():
    rows = [{"lr": lr, "batch_size": bs, "seed": s, "val_acc": 70 + s + (lr == 0.2)}
            for s in range(4) for lr, bs in ((0.1, 32), (0.2, 64))]
    report = analyse(rows)
    assert report.factor == ["lr", "batch_size"]
    comparison = report.comparisons[0]
    assert comparison.changed == ["lr", "batch_size"]
    assert any("several settings changed" in w for w in report.warnings)
    assert any("several settings changed" in n for n in comparison.notes)


def test_a_factor_with_another_setting_varying_inside_an_arm_is_warned():
    rows = [{"lr": lr, "batch_size": 32 if s < 2 else 64, "seed": s, "val_acc": 70 + s}
            for s in range(4) for lr in (0.1, 0.2)]
    report = analyse(rows, factor=["lr"])
    assert report.factor == ["lr"] and len(report.arms) == 2
    assert any("mixes settings" in w and "batch_size" in w for w in report.warnings)


def test_crashed_runs_are_named_not_silently_dropped():
    rows = [{"arm": a, "seed": s, "val_acc": 70 + s + (a == "new")} for s in range(4) for a in ("baseline", "new")]
    rows[3]["val_acc"] = "nan"
    report = analyse(rows)
    new = next(arm for arm in report.arms if arm.label == "new")
    assert new.n == 3 and len(new.runs) == 4
    assert any("left out" in w and "row 4" in w for w in report.warnings)


def test_baseline_can_be_named_by_label_or_pairs_and_a_wrong_one_lists_the_arms():
    rows = [{"lr": lr, "seed": s, "val_acc": 70 + s + lr} for s in range(3) for lr in (0.1, 0.2, 0.4)]
    assert analyse(rows).baseline == "0.1"  # the first arm
    assert analyse(rows, baseline="0.4").baseline == "0.4"
    assert analyse(rows, baseline="lr=0.2").baseline == "0.2"
    with pytest.raises(UsageError, match="Arms: '0.1', '0.2', '0.4'"):
        analyse(rows, baseline="0.3")


def test_runs_that_all_share_their_settings_cannot_be_compared():
    with pytest.raises(UsageError, match="no arms to compare"):
        analyse([{"arm": "a", "seed": s, "acc": 70 + s} for s in range(3)])


def test_the_same_input_gives_the_same_report():
    rows = synthetic(random.Random(2), {"baseline": 0.0, "b": 0.3, "c": -0.2}, 5, 1.0, 0.3)
    assert analyse(rows).to_json_data() == analyse(rows).to_json_data()


def test_arms_on_disjoint_seeds_fall_back_to_welch_and_say_so():
    rows = [{"arm": "baseline", "seed": s, "acc": 70 + 0.1 * s} for s in (1, 2, 3)]
    rows += [{"arm": "new", "seed": s, "acc": 75 + 0.1 * s} for s in (4, 5, 6)]
    report = analyse(rows)
    comparison = by_arm(report)["new"]
    assert comparison.method == "unpaired" and comparison.shared_seeds == [] and comparison.wins is None
    a, b = [75.4, 75.5, 75.6], [70.1, 70.2, 70.3]
    se = math.sqrt(statistics.variance(a) / 3 + statistics.variance(b) / 3)
    assert comparison.t == pytest.approx((statistics.fmean(a) - statistics.fmean(b)) / se)
    assert "unpaired (seeds not shared)" in comparison.summary
    assert any("does not share all seeds" in w for w in report.warnings)
