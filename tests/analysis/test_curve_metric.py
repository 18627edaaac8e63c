"""A metric column beside the loss: "loss falls, metric flat" is loss_metric_mismatch; a moving metric is not."""

from __future__ import annotations

import math
import random

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_metric import is_metric, pick_metric
from mldebug_mcp.errors import UsageError

from .curves import finding, healthy, healthy_shape, log_of

EVERY = 50  # one evaluation every 50 steps: 20 points over the run


def evaluations(value, seed: int = 0, noise: float = 0.005, every: int = EVERY, n: int = 1000):
    rng = random.Random(seed + 100)
    return [(t, value(t) + rng.gauss(0.0, noise)) for t in range(every, n + 1, every)]


def rising(t: float) -> float:  # accuracy following the loss: from chance (0.25) towards 0.9
    return 0.25 + 0.65 * (1 - (healthy_shape(t) - 0.4) / 2.0)


def report(seed=0, **metrics):
    return analyze_curve(log_of(loss=healthy(seed=seed), **metrics))


def test_a_noisy_flat_metric_is_found_flat_in_most_runs():
    # two standard errors: a flat metric's thirds differ by more in about 5% of runs, read as movement
    found = sum("loss_metric_mismatch" in report(s, val_accuracy=evaluations(lambda t: 0.25, s)).observations
                for s in range(40))
    assert found >= 36


@pytest.mark.parametrize("seed", [0, 1])
def test_a_flat_metric_beside_a_falling_loss_is_a_mismatch(seed):
    r = report(seed, val_accuracy=evaluations(lambda t: 0.25, seed))
    assert "loss_metric_mismatch" in r.observations and "slow_healthy" not in r.observations
    f = finding(r, "loss_metric_mismatch")
    assert "while val_accuracy stays at 0.2" in f.summary and abs(f.values["metric_start"] - 0.25) < 0.01
    assert f.values["loss_at_metric_start"] > 1.1 * f.values["loss_at_metric_end"]
    assert "val_accuracy read as the metric beside the loss." in r.notes


def test_a_metric_that_moves_with_the_loss_is_quiet():
    for seed in range(40):
        assert report(seed, val_accuracy=evaluations(rising, seed)).observations == ["slow_healthy"], seed


def test_an_exactly_constant_metric_is_flat_and_a_metric_at_its_best_is_saturated():
    flat = report(**{"eval/f1": [(t, 0.0) for t in range(50, 1001, 50)]})
    assert "loss_metric_mismatch" in flat.observations
    best = report(train_acc=[(t, 1.0) for t in range(50, 1001, 50)])  # memorised: the loss may go on falling
    assert "loss_metric_mismatch" not in best.observations
    error = report(val_error=[(t, 0.0) for t in range(50, 1001, 50)])  # an error at its best, 0
    assert "loss_metric_mismatch" not in error.observations


def test_a_small_real_rise_beyond_the_noise_counts_as_moving():
    # +0.03 accuracy over the run with noise 0.002 per evaluation: far beyond two standard errors
    r = report(val_acc=evaluations(lambda t: 0.50 + 0.03 * t / 1000, noise=0.002))
    assert "loss_metric_mismatch" not in r.observations


def test_noise_alone_does_not_count_as_moving():
    r = report(val_acc=evaluations(lambda t: 0.5, noise=0.02))
    assert "loss_metric_mismatch" in r.observations


def test_a_flat_loss_is_not_a_mismatch():
    flat_loss = [(t, 2.3 * math.exp(random.Random(t).gauss(0, 0.02))) for t in range(1000)]
    r = analyze_curve(log_of(loss=flat_loss, val_acc=evaluations(lambda t: 0.1)))
    assert "loss_metric_mismatch" not in r.observations and "flat_from_start" in r.observations


def test_the_metric_is_judged_over_the_steps_it_covers():
    # logged only once the loss has levelled off: the loss does not fall there, so no verdict
    late = [(t, 0.3) for t in range(2400, 3001, 50)]
    long_run = [(t, 0.4 + 2.0 * math.exp(-t / 200)) for t in range(3000)]
    r = analyze_curve(log_of(loss=long_run, val_acc=late))
    assert "loss_metric_mismatch" not in r.observations


def test_too_few_metric_points_give_no_verdict():
    r = report(val_acc=[(t, 0.25) for t in (300, 600, 900)])
    assert "loss_metric_mismatch" not in r.observations
    assert not any("metric beside" in n for n in r.notes)


def test_a_named_metric_is_used_and_an_absent_one_is_refused():
    log = log_of(loss=healthy(), val_acc=evaluations(rising), custom_quality=evaluations(lambda t: 0.7))
    assert pick_metric(log, None, "loss") == "val_acc"
    named = analyze_curve(log, metric="custom_quality")
    assert "loss_metric_mismatch" in named.observations
    with pytest.raises(UsageError, match="no series 'val_acuracy'"):
        analyze_curve(log, metric="val_acuracy")


def test_a_training_metric_is_preferred_and_a_held_out_one_read_when_alone():
    log = log_of(loss=healthy(), **{"val/acc": evaluations(lambda t: 0.25)}, train_acc=evaluations(rising))
    assert pick_metric(log, None, "loss") == "train_acc"
    assert analyze_curve(log).observations == ["slow_healthy"]  # val flat, train rising: not the metric's fault
    alone = analyze_curve(log_of(loss=healthy(), **{"val/acc": evaluations(lambda t: 0.25)}))
    assert "does not generalise" in finding(alone, "loss_metric_mismatch").meaning


@pytest.mark.parametrize("name", ["eval_accuracy", "val/acc", "train_acc_step", "val/mIoU", "metrics/mAP50-95(B)",
                                  "eval_f1", "val_r2", "test/top1", "bleu4", "val_wer"])
def test_metric_names_are_recognised(name):
    assert is_metric(name)


@pytest.mark.parametrize("name", ["loss", "eval_loss", "learning_rate", "grad_norm", "epoch", "eval_runtime",
                                  "eval_samples_per_second", "total_flos", "val_perplexity", "global_step"])
def test_other_series_are_not_metrics(name):
    assert not is_metric(name)


def test_the_cli_reads_a_named_metric_column(tmp_path, capsys):
    """`mldebug-mcp curve --metric NAME` picks the series; a flat one beside a falling loss is the mismatch."""
    import json

    from mldebug_mcp.cli import main

    rows = ["step,loss,train_acc,other_acc"]
    for step in range(0, 1000, 10):
        rows.append(f"{step},{2.3 * math.exp(-step / 300) + 0.05:.5f},{0.25 + 0.0001 * (step % 3):.5f},"
                    f"{rising(step):.5f}")
    log = tmp_path / "log.csv"
    log.write_text("\n".join(rows) + "\n")
    assert main(["curve", str(log), "--metric", "train_acc", "--json"]) == 0
    assert "loss_metric_mismatch" in json.loads(capsys.readouterr().out)["curve"]["observations"]
    assert main(["curve", str(log), "--metric", "other_acc", "--json"]) == 0
    assert "loss_metric_mismatch" not in json.loads(capsys.readouterr().out)["curve"]["observations"]


def test_the_metric_read_is_named_in_the_report_and_drawn_on_its_own_axis(tmp_path):
    pytest.importorskip("matplotlib")
    from mldebug_mcp.analysis.curve_plot import _metric_range
    from mldebug_mcp.services.curves import curve_report

    rows = ["step,loss,train_acc"] + [f"{s},{2.3 * math.exp(-s / 300) + 0.05:.5f},0.25" for s in range(0, 1000, 10)]
    (tmp_path / "log.csv").write_text("\n".join(rows) + "\n")
    report = curve_report(tmp_path / "log.csv", plot=tmp_path / "curve.png")
    assert report.metric_series == "train_acc" and (tmp_path / "curve.png").stat().st_size > 0
    # a flat metric is drawn on its natural scale, not stretched until its noise fills the axis
    assert _metric_range([0.249, 0.251]) == (0.0, 1.0) and _metric_range([71.0, 72.5]) == (0.0, 100.0)
    low, high = _metric_range([-3.01, -2.99])
    assert high - low == pytest.approx(0.6)  # widened to a tenth of its size each way
