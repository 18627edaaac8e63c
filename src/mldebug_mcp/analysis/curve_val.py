"""Detectors that compare the validation loss with the training loss."""

from __future__ import annotations

from ..models.curves import CurveFinding
from .curve_stats import (
    Trace,
    finite_only,
    level_near,
    levels_near,
    median,
    rolling_median,
    scale,
)

VAL_MIN_POINTS = 4  # fewer evaluations cannot show a turn
VAL_RISE = 0.1  # ending 10% above its best is more than evaluation noise
VAL_AFTER_BEST = 2  # two evaluations after the best one, so a single bad evaluation is not a trend
GAP_RATIO = 2.0  # validation loss at twice the training loss: fitting what does not generalise
VAL_BELOW = 0.1  # "clearly below": validation more than 10% under the training loss...
VAL_BELOW_MOST = 0.6  # ...at 60% of the evaluations, so a few early lucky ones do not count




def _train_half_width(trace: Trace) -> int:
    return max(2, trace.n // 50)  # the training level around a step: median of 2% of the run


def find_gap(trace: Trace, val_steps, val_values) -> CurveFinding | None:
    """`train_val_gap`: the validation loss (rolling median of 3) is best at least two evaluations
    before the end and ends 10% above that best while the training loss ends no higher than it was
    at that step; or, at the last evaluation, the validation loss is 2x the training loss or more.
    "Ends" is the last evaluation (a mean over the whole validation set, far steadier than a training
    batch), and the training level is taken around the same step, so both are compared at one time."""
    steps, values = finite_only(val_steps, val_values)
    if len(values) < VAL_MIN_POINTS:
        return None
    smooth = rolling_median(values, 3)
    best, final = min(range(len(values)), key=smooth.__getitem__), values[-1]
    half = _train_half_width(trace)
    train_at_best = level_near(trace.steps, trace.values, steps[best], half)
    train_final = level_near(trace.steps, trace.values, steps[-1], half)
    turned = (
        best <= len(values) - 1 - VAL_AFTER_BEST
        and final - smooth[best] >= VAL_RISE * scale(smooth[best])
        and train_final <= train_at_best
    )
    ratio = final / train_final if train_final > 0 and final > 0 else 0.0
    if not (turned or ratio >= GAP_RATIO):
        return None
    if turned:
        summary = (f"the validation loss was best ({smooth[best]:.4g}) at step {steps[best]} and rose to {final:.4g} "
                   f"while the training loss went on from {train_at_best:.4g} to {train_final:.4g}.")
    else:
        summary = (f"at step {steps[-1]} the validation loss ({final:.4g}) is {ratio:.1f}x the training loss "
                   f"({train_final:.4g}).")
    return CurveFinding(
        observation="train_val_gap",
        step=steps[best] if turned else steps[-1],
        summary=summary,
        meaning="The model fits the training set without generalising: keep the checkpoint at the validation "
        "minimum, regularise or add data, and check that both splits get the same preprocessing.",
        values={"val_best": smooth[best], "val_best_step": steps[best], "val_final": final,
                "train_at_val_best": train_at_best, "train_final": train_final, "val_to_train": ratio},
    )


def find_val_too_good(trace: Trace, val_steps, val_values) -> CurveFinding | None:
    """`val_too_good`: at 60% or more of the evaluations inside the training run's steps (3 at least),
    the validation loss is more than 10% below the training loss around that step."""
    steps, values = finite_only(val_steps, val_values)
    inside = [(s, v) for s, v in zip(steps, values) if trace.steps[0] <= s <= trace.steps[-1]]
    if len(inside) < 3:
        return None
    trains = levels_near(trace.steps, trace.values, [s for s, _ in inside], _train_half_width(trace))
    pairs = [(v, train) for (_, v), train in zip(inside, trains)]
    below = sum(v < train - VAL_BELOW * scale(train) for v, train in pairs)
    if below < VAL_BELOW_MOST * len(pairs):
        return None
    ratio = median([v / train for v, train in pairs if train > 0]) if any(t > 0 for _, t in pairs) else 0.0
    return CurveFinding(
        observation="val_too_good",
        step=None,
        summary=f"the validation loss is more than {VAL_BELOW:.0%} below the training loss at {below} of "
        f"{len(pairs)} evaluations (median validation/training ratio {ratio:.2f}).",
        meaning="Either training is handicapped where validation is not (dropout, augmentation, a training loss "
        "averaged over an epoch), or validation examples leak from the training set: rule out leakage first.",
        values={"below": below, "evaluations": len(pairs), "median_ratio": ratio},
    )
