"""Check 5: the full loop can memorise one batch."""

from __future__ import annotations

import math
from typing import Any

from .base import FAIL, PASS, WARN, Check, rounded
from .session import Session

CHECK = Check("overfit_one_batch", "Overfit one batch", (
    "karpathy-recipe/overfit-one-batch", "cs231n/overfit-tiny-subset", "karpathy-mistakes/overfit-single-batch-first"))

TARGET_FRACTION = 0.05  # our threshold: the loss must fall to 5% of its first value
STALL_FRACTION = 0.5    # above half the first value, the loop is not learning


def real_curve(s: Session) -> list[float]:
    """The training curve on the real batch; shared with the input-dependence check."""
    return s.train_curve("real", s.batch, s.steps, stop_below=TARGET_FRACTION)


def run(s: Session) -> Any:
    curve = real_curve(s)
    first, last = curve[0], curve[-1]
    measured = {"steps_run": len(curve), "first_loss": rounded(first), "final_loss": rounded(last),
                "min_loss": rounded(min(curve))}
    series = {"loss": [rounded(v) for v in curve]}
    expected = {"final_fraction_of_first": TARGET_FRACTION, "within_steps": s.steps}
    if not math.isfinite(last):
        status, summary = FAIL, f"the loss became {last} at step {len(curve) - 1}: the step diverges"
    elif first <= 0:
        status, summary = FAIL, f"the loss starts at {first:.3g}: there is nothing to learn (all targets masked?)"
    else:
        fraction = last / first
        measured["final_fraction_of_first"] = rounded(fraction)
        if fraction <= TARGET_FRACTION:
            status, summary = PASS, f"loss fell from {first:.4g} to {last:.3g} in {len(curve)} steps"
        elif last > first * 1.05:
            status, summary = FAIL, f"loss rose from {first:.4g} to {last:.4g} over {len(curve)} steps: learning rate too high or a sign error"
        elif fraction <= STALL_FRACTION:
            status, summary = WARN, (f"loss fell from {first:.4g} to {last:.4g} ({fraction:.0%}) but not to "
                                     f"{TARGET_FRACTION:.0%} in {s.steps} steps: a floor, too little capacity, or a low learning rate")
        else:
            status, summary = FAIL, f"loss barely moved: {first:.4g} -> {last:.4g} in {len(curve)} steps"
    details = _floor_hints(s, last) if status != PASS else []
    return CHECK.result(
        status, summary, measured=measured, expected=expected, series=series, details=details,
        meaning="A model that cannot memorise a single batch has a bug in the loop, the loss or the data; "
                "nothing at full scale is worth running until this passes.",
        next_test="If flat: gradient flow and parameter updates. If it stalls at a floor: look for softmax before "
                  "the loss or masked targets. If it oscillates: lower the learning rate.")


def _floor_hints(s: Session, last: float) -> list[str]:
    if s.spec.task == "classification" and math.isfinite(last):
        k = s.spec.num_classes
        floor = math.log(1 + (k - 1) / math.e)  # lowest cross-entropy reachable from probabilities in [0, 1]
        if abs(last - floor) < 0.05 * floor:
            return [f"the loss sits at {floor:.3f} = ln(1 + (k-1)/e), the floor of softmax fed into cross-entropy"]
    return []
