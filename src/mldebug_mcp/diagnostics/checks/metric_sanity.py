"""Check 16: the spec's metric scores perfect predictions as perfect, wrong ones as not, and moves
when the loss falls.

The metric runs on the model's own outputs, on predictions built from the targets (metric_inputs:
perfect, constant, shuffled) and before and after a short run that memorises the batch. A metric
that takes the argmax over the wrong axis, thresholds logits at 0.5, averages the logits over the
batch, or pairs predictions with the targets of other samples misses its perfect value on perfect
predictions; one that ignores the predictions also scores constant or shuffled ones as perfect,
and stays where it was while the loss falls.
"""

from __future__ import annotations

import math
import os
from typing import Any

from .base import FAIL, WARN, Check, rounded
from .metric_inputs import Probes, build
from .one_batch import LEARNS_FRACTION, learning_run, lr_text, short_steps
from .result import user_traceback
from .session import Session

CHECK = Check("metric_sanity", "Metric scores known predictions right", (
    "karpathy-recipe/overfit-one-batch", "goodfellow/visualize-model-in-action", "jones/assume-a-bug"))
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))

TOLERANCE = 1e-5  # our threshold, relative to max(1, |perfect|): a metric's epsilon terms stay under it
PERFECT_DEFAULTS = (1.0, 100.0)  # a fraction or a percentage, when the spec does not say
# After a run that memorised the batch (the loss fell this share of the way to its floor) a metric that reads the
# predictions right is near a best value: 1 or 100 for a score, 0 for an error, or the declared one. Our thresholds,
# loose on purpose: BatchNorm's running statistics and dropout make eval outputs of a memorised batch imperfect.
MEMORISED = 0.99
BEST_VALUES = (0.0, 1.0, 100.0)
FAR_FROM_BEST = 0.25  # of max(1, |best|): 0.48 for an accuracy is far from 1 and from 0; 0.9 is not
# What usually moves a metric off its perfect value, by task: the sentence a failure ends with.
SUSPECTS = {
    "classification": "an argmax over the wrong axis (or none), logits averaged over the batch, predictions "
                      "and labels flattened in different orders, or positions labelled ignore_index counted",
    "binary": "a threshold applied to logits (0.5 where logits need 0), a sigmoid applied to probabilities, "
              "predictions (N, 1) compared with labels (N,) (a broadcast to N x N), or a different order",
    "regression": "predictions and targets in different orders or shapes (a (N, 1) against (N,) broadcast), or a "
                  "mean over the wrong axis",
}
SUSPECTS["lm"] = SUSPECTS["classification"]
LEARNED = LEARNS_FRACTION  # the short run covered half the way from its first loss to the floor


def run(s: Session) -> Any:
    if s.spec.metric is None:
        return CHECK.skip("no 'metric' in the spec; add metric=fn(logits, targets) (or (fn, perfect_value)) to check it")
    fn, declared = s.spec.metric if isinstance(s.spec.metric, (tuple, list)) else (s.spec.metric, None)
    measured: dict[str, Any] = {"task": s.spec.task}
    expected: dict[str, Any] = {"perfect_value": declared if declared is not None else "1.0 or 100",
                                "on_constant_and_shuffled": "not the perfect value",
                                "after_training": "moved when the loss falls"}
    problems: list[tuple[str, str]] = []
    own = _score(fn, _outputs(s), s.batch[1])
    if isinstance(own, str):
        problems.append((FAIL, f"on the model's own outputs the metric {own}"))
        return _result(problems, measured, expected)
    measured["on_model_outputs"] = rounded(own)
    probes = build(s)
    built = not isinstance(probes, str)
    if not built:
        measured["constructed_predictions"] = f"skipped: {probes}"
        perfect = declared
    else:
        measured["constructed_predictions"] = probes.how
        perfect = _constructed(fn, probes, declared, s.spec.task, measured, problems)
    moved_test = _training(s, fn, perfect, measured, problems) if not problems else False
    if not problems and not built and not moved_test:
        return CHECK.result("skipped", f"nothing to test the metric on: {probes}, and the loss did not fall on "
                            "one batch (see overfit_one_batch)", measured=measured)
    return _result(problems, measured, expected, built)


def _constructed(fn: Any, p: Probes, declared: float | None, task: str, measured: dict, problems: list) -> float | None:
    """Score the probes; return the perfect value (declared, or the default the metric reached)."""
    on_perfect = _score(fn, p.perfect, p.targets)
    if isinstance(on_perfect, str):
        problems.append((FAIL, f"on perfect predictions ({p.how}) the metric {on_perfect}"))
        return declared
    measured["on_perfect"] = rounded(on_perfect)
    candidates = (declared,) if declared is not None else PERFECT_DEFAULTS
    perfect = next((v for v in candidates if _same(on_perfect, v)), None)
    scores = {"constant": (p.constant, p.constant_how), "shuffled": (p.shuffled, "each sample given the next one's")}
    values = {}
    for name, (tensor, how) in scores.items():
        if tensor is None:
            continue
        value = _score(fn, tensor, p.targets)
        measured[f"on_{name}"] = value if isinstance(value, str) else rounded(value)
        values[name] = value
    if perfect is None:
        same = [k for k, v in values.items() if not isinstance(v, str) and _same(v, on_perfect)]
        also = f"; it gives the same value to {' and '.join(same)} predictions" if same else ""
        wanted = f"{declared:g}" if declared is not None else "1 (or 100)"
        hint = "" if declared is not None else " (if its best value is another, give metric=(fn, best_value))"
        problems.append((FAIL, (f"gives {on_perfect:.6g} on perfect predictions ({p.how}), expected {wanted}{also}: "
                                f"{SUSPECTS.get(task, SUSPECTS['classification'])}{hint}")))
        return declared
    for name, value in values.items():
        if not isinstance(value, str) and _same(value, perfect):
            what = scores[name][1]
            problems.append((FAIL, f"scores {name} predictions ({what}) as perfect ({value:.6g}): it does not "
                                   "read the predictions" + (" sample by sample" if name == "shuffled" else "")))
    return perfect


def _training(s: Session, fn: Any, perfect: float | None, measured: dict, problems: list) -> bool:
    """A short run on the batch at the rate that learns it: the loss falls, so the metric should move.
    True when the run could tell (the loss fell half the way to its floor, the metric was not perfect)."""
    learner = learning_run(s)
    steps = short_steps(s)
    s.seeded()
    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model, learner.factor)
    before = _score(fn, _outputs(s, model), s.batch[1])
    losses = []
    for _ in range(steps):
        try:
            losses.append(s.step(model, s.batch, optimizer))
        except Exception:  # overfit_one_batch reports a step that raises
            return False
        if not math.isfinite(losses[-1]):
            return False
    after = _score(fn, _outputs(s, model), s.batch[1])
    span = losses[0] - learner.floor
    covered = (losses[0] - losses[-1]) / span if span > 0 else 0.0
    measured.update(training_steps=steps, training_rate=lr_text(s, learner.factor),
                    loss_first=rounded(losses[0]), loss_last=rounded(losses[-1]))
    if isinstance(before, str) or isinstance(after, str):
        problems.append((FAIL, f"while training the metric {before if isinstance(before, str) else after}"))
        return True
    measured.update(before_training=rounded(before), after_training=rounded(after))
    if covered < LEARNED or (perfect is not None and _same(before, perfect)):
        return False
    if _same(before, after):
        problems.append((FAIL, (f"does not move while the loss falls: {before:.6g} before and {after:.6g} after "
                                f"{steps} steps at {lr_text(s, learner.factor)} on this batch, while the loss fell "
                                f"from {losses[0]:.4g} to {losses[-1]:.4g}")))
    elif covered >= MEMORISED and _far_from_best(after, perfect):
        best = f"{perfect:g}" if perfect is not None else "1, 100 or 0"
        problems.append((WARN, (f"reads {after:.4g} on a batch the model memorised (the loss fell from {losses[0]:.4g} "
                                f"to {losses[-1]:.4g} in {steps} steps), far from its best value ({best}): a metric "
                                "that counts the predictions right is near its best there; look for positions masked "
                                "with the wrong ignore value, padding counted, or a mean over the wrong axis (if its "
                                "best value is another, give metric=(fn, best_value))")))
    return True


def _far_from_best(value: float, perfect: float | None) -> bool:
    """Whether a metric read on a memorised batch is far from every value its best could be."""
    bests = (perfect,) if perfect is not None else BEST_VALUES
    return all(abs(value - best) > FAR_FROM_BEST * max(1.0, abs(best)) for best in bests)


def _outputs(s: Session, model: Any = None) -> Any:
    """The model's logits on the batch in eval mode: what a metric reads at evaluation."""
    import torch

    model = model if model is not None else s.fresh_model(train=False)
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return s.logits(model, s.batch[0])
    finally:
        model.train(training)


def _score(fn: Any, predictions: Any, targets: Any) -> float | str:
    """The metric as a float, or a sentence saying what it did instead (raised, a vector, NaN)."""
    import torch

    try:
        with torch.no_grad():
            value = fn(predictions.clone(), targets.clone())
    except Exception as exc:
        where = "; ".join(user_traceback(exc, _OWN_DIR)["frames"][-1:])
        return (f"raised {type(exc).__name__}: {exc} (predictions {list(predictions.shape)}, targets "
                f"{list(targets.shape)})" + (f" at {where}" if where else ""))
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            return (f"returned a tensor of shape {list(value.shape)}, not one number: it averages over too few "
                    "axes (or the wrong one)")
        value = value.item()
    try:
        number = float(value)
    except (TypeError, ValueError):
        return f"returned {type(value).__name__}, not a number"
    return number if math.isfinite(number) else f"returned {number}"


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def _result(problems: list, measured: dict, expected: dict, built: bool = True) -> Any:
    # A pass says only what was tried: with no predictions built from the targets (task 'custom', soft labels),
    # the perfect value was never scored.
    healthy = ("the metric scores perfect predictions as perfect, wrong ones lower, and moves as the loss falls"
               if built else "the metric moves as the loss falls; no perfect predictions were built to score (see "
               "constructed_predictions)")
    return CHECK.verdict(
        problems, healthy,
        measured=measured, expected=expected,
        meaning="A metric with a bug reports a model as stuck (or as good) whatever it learns: the loss falls and the "
                "number that decides the run does not follow.",
        next_test="Call the metric by hand on targets turned into predictions (one-hot logits of the labels) and "
                  "check the perfect value; then print predictions and targets side by side for a few samples.")
