"""metric_sanity: each buggy metric fires, each correct one stays quiet (in-process, CPU).

Known answers: on predictions built from the targets a correct metric is exactly at its best value;
the bugs below each move it off that value (or keep it there on wrong predictions), by construction.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import SpecError, as_spec, run_checks

from . import builders as b

pytestmark = pytest.mark.usefixtures("single_thread")


def verdict(spec):
    (result,) = run_checks(spec, only=["metric_sanity"])["checks"]
    return result


# --- correct metrics ------------------------------------------------------------------------------

def accuracy(logits, y):
    return (logits.argmax(1) == y).float().mean()


def macro_f1(logits, y, k=4):
    pred = logits.argmax(1)
    scores = []
    for c in range(k):
        tp = ((pred == c) & (y == c)).sum().float()
        fp = ((pred == c) & (y != c)).sum().float()
        fn = ((pred != c) & (y == c)).sum().float()
        scores.append(2 * tp / (2 * tp + fp + fn + 1e-12))
    return torch.stack(scores).mean()


def top2(logits, y):
    return (logits.topk(2, dim=1).indices == y[:, None]).any(1).float().mean()


def binary_f1(logits, y):
    pred = logits > 0
    tp = (pred & (y == 1)).sum().float()
    return 2 * tp / (pred.sum() + (y == 1).sum()).float()


def mean_iou(logits, y, k=3):
    pred = logits.argmax(1)
    ious = []
    for c in range(k):
        union = ((pred == c) | (y == c)).sum()
        if union > 0:
            ious.append(((pred == c) & (y == c)).sum().float() / union)
    return torch.stack(ious).mean()


def token_overlap(logits, y):
    """A BLEU-like unigram precision with clipped counts, averaged over sequences."""
    pred = logits.argmax(-1)
    scores = []
    for p, t in zip(pred, y):
        counts = torch.bincount(t, minlength=16)
        clipped = torch.minimum(torch.bincount(p, minlength=16), counts).sum()
        scores.append(clipped.float() / len(p))
    return torch.stack(scores).mean()


def r2(pred, y):
    return 1 - ((y - pred) ** 2).sum() / ((y - y.mean(0)) ** 2).sum()


def percent_accuracy(logits, y):
    return 100.0 * (logits.argmax(1) == y).float().mean()


def error_rate(logits, y):
    return (logits.argmax(1) != y).float().mean().item()


# --- setups ---------------------------------------------------------------------------------------

def multilabel(**overrides):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 10, generator=g)
    y = (x[:, :5] > 0.3).float()
    spec = dict(model=nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5)), batch=(x, y),
                loss_fn=F.binary_cross_entropy_with_logits, task="binary",
                optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    spec.update(overrides)
    return spec


def segmentation(**overrides):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 3, 6, 6, generator=g)
    y = x.argmax(1)  # the brightest channel is the class
    spec = dict(model=nn.Sequential(nn.Conv2d(3, 16, 1), nn.ReLU(), nn.Conv2d(16, 3, 1)), batch=(x, y),
                loss_fn=F.cross_entropy, task="classification", num_classes=3,
                optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    spec.update(overrides)
    return spec


CORRECT = {
    "accuracy": lambda: b.classifier(metric=accuracy),
    "macro_f1": lambda: b.classifier(metric=macro_f1),
    "top2": lambda: b.classifier(metric=top2),
    "percent": lambda: b.classifier(metric=percent_accuracy),
    "error_rate_declared": lambda: b.classifier(metric=(error_rate, 0.0)),
    "multilabel_f1": lambda: multilabel(metric=binary_f1),
    "mean_iou": lambda: segmentation(metric=mean_iou),
    "token_overlap": lambda: b.lm(metric=token_overlap),
    "r2": lambda: b.regression(metric=r2),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_correct_metric_passes(name):
    result = verdict(CORRECT[name]())
    assert result["status"] == "pass", result
    measured = result["measured"]
    assert measured["before_training"] != measured["after_training"]  # the movement test was run
    assert "on_perfect" in measured and "on_shuffled" in measured


# --- buggy metrics --------------------------------------------------------------------------------

def argmax_flat(logits, y):  # argmax over no dimension: one index into the flattened logits
    return (logits.argmax() == y).float().mean()


def argmax_batch_axis(logits, y):  # argmax over the batch: raises unless the shapes happen to broadcast
    return (logits.argmax(0) == y).float().mean()


def threshold_on_logits(logits, y):  # 0.5 is a probability threshold; logits need 0
    return ((logits > 0.5).float() == y).float().mean()


def mean_over_batch_first(logits, y):  # the logits averaged over the batch: one prediction for all
    return (logits.mean(0).argmax() == y).float().mean()


def per_class_vector(logits, y):  # averaged over the batch only: one accuracy per label, not a number
    return ((logits > 0).float() == y).float().mean(0)


def time_major(logits, y):  # predictions flattened time-major, targets batch-major
    return (logits.transpose(0, 1).reshape(-1, logits.shape[-1]).argmax(-1) == y.reshape(-1)).float().mean()


def sorted_pairs(logits, y):  # predictions and targets each sorted: pairing lost, histograms compared
    return (logits.argmax(1).sort().values == y.sort().values).float().mean()


def targets_only(logits, y):  # reads only the targets
    return torch.ones_like(y).float().mean()


BUGGY = {
    "argmax_flat": (lambda: b.classifier(metric=argmax_flat), "on perfect predictions"),
    "argmax_batch_axis": (lambda: b.classifier(metric=argmax_batch_axis), "raised RuntimeError"),
    "threshold_on_logits": (lambda: multilabel(metric=threshold_on_logits), "on perfect predictions"),
    "mean_over_batch": (lambda: b.classifier(metric=mean_over_batch_first), "on perfect predictions"),
    "per_class_vector": (lambda: multilabel(metric=per_class_vector), "not one number"),
    "time_major_lm": (lambda: b.lm(metric=time_major), "on perfect predictions"),
    "sorted_pairs": (lambda: b.classifier(metric=sorted_pairs), "scores shuffled predictions"),
    "ignores_predictions": (lambda: b.classifier(metric=targets_only), "scores constant predictions"),
    "percent_declared_as_fraction": (lambda: b.classifier(metric=(percent_accuracy, 1.0)), "expected 1"),
}


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_a_buggy_metric_fails_and_says_what_it_did(name):
    build, words = BUGGY[name]
    result = verdict(build())
    assert result["status"] == "fail", result
    assert words in result["summary"], result["summary"]


def test_argmax_over_the_batch_axis_that_happens_to_broadcast_misses_perfect():
    # 4 samples, 4 classes: argmax(0) has the targets' shape, silently. On one-hot logits it gives the
    # inverse permutation of the labels, so labels 0,1,2,3 (their own inverse) would hide it; 1,2,3,0 do not.
    x, y = b.clusters(n=4)
    result = verdict(b.classifier(batch=(x, y.roll(1)), metric=argmax_batch_axis))
    assert result["status"] == "fail" and "on perfect predictions" in result["summary"]
    assert result["measured"]["on_perfect"] != 1.0


def test_a_metric_that_does_not_move_while_the_loss_falls():
    stale = []

    def first_value_kept(logits, y):  # a stale cache: right on the one-hot probes, frozen on the model's outputs
        value = float((logits.argmax(1) == y).float().mean())
        if bool(((logits == 0) | (logits == 8)).all()):
            return value
        stale.append(value)
        return stale[0]

    result = verdict(b.classifier(metric=first_value_kept))
    assert result["status"] == "fail", result
    assert "does not move while the loss falls" in result["summary"]
    assert result["measured"]["loss_last"] < result["measured"]["loss_first"]


def test_probability_outputs_get_probability_predictions():
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5), nn.Sigmoid())
    right = verdict(multilabel(model=model, loss_fn=F.binary_cross_entropy,
                               metric=lambda p, y: ((p > 0.5).float() == y).float().mean()))
    assert right["status"] == "pass" and "probabilities" in right["measured"]["constructed_predictions"]
    twice = verdict(multilabel(model=model, loss_fn=F.binary_cross_entropy,
                               metric=lambda p, y: ((p.sigmoid() > 0.5).float() == y).float().mean()))
    assert twice["status"] == "fail" and "on perfect predictions" in twice["summary"]


def test_a_single_logit_compared_with_flat_labels_broadcasts_and_fails():
    x = torch.randn(64, 5, generator=torch.Generator().manual_seed(0))
    y = (x[:, 0] > 0).float()
    spec = {"model": nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1)), "batch": (x, y), "task": "binary",
            "loss_fn": lambda o, t: F.binary_cross_entropy_with_logits(o.squeeze(1), t),
            "optimizer": lambda p: torch.optim.Adam(p, lr=1e-2)}
    assert verdict({**spec, "metric": lambda o, t: ((o.squeeze(1) > 0).float() == t).float().mean()})["status"] == "pass"
    broadcast = verdict({**spec, "metric": lambda o, t: ((o > 0).float() == t).float().mean()})
    assert broadcast["status"] == "fail" and "(a broadcast to N x N)" in broadcast["summary"]


def test_ignored_positions_must_be_left_out_of_the_metric():
    spec = b.lm()
    inputs, targets = spec["batch"]
    targets = targets.clone()
    targets[:, -3:] = -100  # padding
    masked = verdict({**spec, "batch": (inputs, targets),
                      "metric": lambda o, t: (o.argmax(-1) == t)[t != -100].float().mean()})
    assert masked["status"] == "pass"
    counted = verdict({**spec, "batch": (inputs, targets), "metric": lambda o, t: (o.argmax(-1) == t).float().mean()})
    assert counted["status"] == "fail" and counted["measured"]["on_perfect"] == 0.75


def test_a_model_computing_its_own_lm_loss_gets_no_constructed_predictions_but_training_is_watched():
    from .hf_standins import hf_lm_spec

    def next_token_accuracy(logits, labels):
        keep = labels[:, 1:] != -100
        return ((logits[:, :-1].argmax(-1) == labels[:, 1:]) & keep).sum() / keep.sum()

    result = verdict(hf_lm_spec(metric=next_token_accuracy))
    assert result["status"] == "pass"
    assert "may shift the labels inside" in result["measured"]["constructed_predictions"]
    assert result["measured"]["after_training"] > result["measured"]["before_training"]


def test_custom_task_skips_constructed_predictions_and_still_watches_training():
    result = verdict(b.classifier(task="custom", num_classes=None, metric=accuracy))
    assert result["status"] == "pass"
    assert result["measured"]["constructed_predictions"].startswith("skipped: task 'custom'")
    frozen = verdict(b.classifier(task="custom", num_classes=None, metric=lambda o, y: 0.25))
    assert frozen["status"] == "fail" and "does not move" in frozen["summary"]


def test_without_a_metric_the_check_is_skipped():
    result = verdict(b.classifier())
    assert result["status"] == "skipped" and "no 'metric'" in result["summary"]


@pytest.mark.parametrize("bad", [3, (accuracy, "one"), (accuracy, float("nan")), (1, 2)])
def test_a_malformed_metric_is_refused_with_both_forms_named(bad):
    with pytest.raises(SpecError, match=r"metric\(logits, targets\).*\(metric, perfect_value\)"):
        as_spec(b.classifier(metric=bad))


# --- a task with no target format: no perfect prediction is built, the memorised batch still tells --------------

def _tagger_spec(metric):
    """A token tagger padded with -100 (the loss ignores it), as a 'custom' task: metric_sanity builds no
    predictions from the targets, so only the short run that memorises the batch can judge the metric."""
    torch.manual_seed(0)
    tokens = torch.randint(1, 20, (8, 12))
    targets = tokens % 5  # a tag each token determines: a batch the model can memorise
    targets[:, 8:] = -100  # padding
    model = nn.Sequential(nn.Embedding(20, 16), nn.Linear(16, 5))
    return dict(model=model, batch=(tokens, targets), task="custom", seq_dim=1, ignore_index=-100,
                loss_fn=lambda logits, t: F.cross_entropy(logits.flatten(0, 1), t.flatten(), ignore_index=-100),
                optimizer=lambda p: torch.optim.Adam(p, lr=3e-2), metric=metric)


def masked_accuracy(ignore):
    def metric(logits, t):
        keep = t != ignore
        return ((logits.argmax(-1) == t) & keep).sum().float() / keep.sum().clamp_min(1)
    return metric


def test_a_metric_masking_the_wrong_pad_value_warns_on_the_memorised_batch():
    """The A/B benchmark's t02 bug: accuracy masks pad id 0 while padding is -100, so a model that memorised the
    batch still reads far below 1; the pass used to say 'scores perfect predictions as perfect', never tried."""
    result = verdict(_tagger_spec(masked_accuracy(0)))
    assert result["status"] == "warn", result["summary"]
    assert "memorised" in result["summary"] and "ignore" in result["summary"]


def test_the_right_mask_passes_and_the_pass_says_no_perfect_prediction_was_built():
    result = verdict(_tagger_spec(masked_accuracy(-100)))
    assert result["status"] == "pass", result["summary"]
    assert "no perfect predictions were built" in result["summary"]
