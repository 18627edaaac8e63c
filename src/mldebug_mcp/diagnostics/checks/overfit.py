"""Check 5: the full loop can memorise one batch, at the spec's learning rate or at one a search finds."""

from __future__ import annotations

import math
from typing import Any

from .base import FAIL, PASS, WARN, Check, rounded
from .contract import contract_of
from .one_batch import RUN_KEY, TARGET_FRACTION, Run, lr_text, real_curve, run_key, search, times, user_run
from .precision import half_precision_eps
from .session import Session

CHECK = Check("overfit_one_batch", "Overfit one batch", (
    "karpathy-recipe/overfit-one-batch", "cs231n/overfit-tiny-subset", "karpathy-mistakes/overfit-single-batch-first"))

MOVED_FRACTION = 0.97  # our threshold: a run that covers less than 3% of the way to the floor did not move
FLOOR_MATCH = 0.05    # within 5% of a known bug's floor, the loss sits on it
FLAT_TAIL = 0.02      # the last quarter of a run changes by less than 2%: it has stopped falling

__all__ = ["CHECK", "real_curve", "run"]


def run(s: Session) -> Any:
    user = user_run(s)
    c = contract_of(s)
    first, last = user.first, user.last
    measured: dict[str, Any] = {"steps_run": len(user.curve), "first_loss": rounded(first), "final_loss": rounded(last),
                                "min_loss": rounded(min(user.curve)), "loss_floor": rounded(user.floor)}
    series = {"loss": [rounded(v) for v in user.curve]}
    expected = {"final_fraction_of_way_to_floor": TARGET_FRACTION, "within_steps": s.steps, "floor": c.floor_how}
    if math.isfinite(first) and first <= user.floor:
        return _result(FAIL, f"the loss starts at {first:.3g}, already at its floor {user.floor:.3g}: there is "
                             "nothing to learn (all targets masked?)", measured, expected, series)
    if math.isfinite(last):
        measured["final_fraction_of_way_to_floor"] = rounded(user.fraction())
    if user.reached:
        return _result(PASS, f"loss fell from {first:.4g} to {last:.3g} in {len(user.curve)} steps{_floor_note(user)}",
                       measured, expected, series)
    bug = _known_floor(s, user)
    if bug and _flat(user.curve):  # stalled on a floor a bug explains: no other rate can help
        return _result(FAIL, f"loss stalls at {last:.4g} after {len(user.curve)} steps: {bug}", measured, expected,
                       series, details=[bug])
    runs = search(s)
    for r in runs:
        series[f"loss at {times(r.factor)} lr"] = [rounded(v) for v in r.curve]
    measured["search"] = [{"lr_factor": r.factor, "steps_run": len(r.curve), "final_loss": rounded(r.last),
                           "reached": r.reached} for r in runs]
    details = [_line(s, r) for r in [user, *runs]]
    raised = s.run_errors.get(RUN_KEY)
    if raised:
        at_given = f"at the given rate the training step raised {raised['type']} at step {raised['step']}: {raised['message']}"
    elif math.isfinite(last):
        at_given = f"at the given rate the loss went from {first:.4g} to {last:.4g} in {len(user.curve)} steps"
    else:
        at_given = f"at the given rate the loss became {last} at step {len(user.curve) - 1}"
    reached = [r for r in runs if r.reached]
    if reached:
        r = reached[0]
        measured["working_lr_factor"] = r.factor
        if user.unstable:
            return _result(WARN, f"{at_given}; at {lr_text(s, r.factor)} it fell to {r.last:.3g} in {len(r.curve)} "
                                 "steps: the learning rate is too high", measured, expected, series, details)
        return _result(PASS, f"needs {lr_text(s, r.factor)}: there the loss fell from {r.first:.4g} to {r.last:.3g} "
                             f"in {len(r.curve)} steps ({at_given}: slow, not broken)", measured, expected, series, details)
    finite = [r for r in [user, *runs] if math.isfinite(r.last)]
    if not finite:
        also = ", and at every lower rate tried" if runs else ""
        cause = "" if raised else f": {half_precision_eps(s) or 'the model, the loss or the step produces NaN/Inf (see first_nonfinite)'}"
        return _result(FAIL, f"{at_given}{also}{cause}", measured, expected, series, details, error=raised)
    best = min(finite, key=lambda r: r.fraction())
    bug = _known_floor(s, best)
    if bug:
        return _result(FAIL, f"the loss stalls at {best.last:.4g} at every rate tried: {bug}", measured, expected,
                       series, details + [bug])
    tried = ", ".join(lr_text(s, r.factor) for r in runs) or "no other rate (the optimizer has no lr to scale)"
    if best.fraction() >= MOVED_FRACTION:
        return _result(FAIL, f"no rate moves the loss: {at_given}; tried {tried}", measured, expected, series, details)
    return _result(WARN, f"the loss falls but not far enough: at best {best.first:.4g} -> {best.last:.4g} "
                         f"({best.fraction():.0%} of the way to its floor left) at {lr_text(s, best.factor)}; "
                         "too little capacity, a floor, or more steps needed", measured, expected, series, details)


def _result(status: str, summary: str, measured: dict, expected: dict, series: dict,
            details: list[str] | None = None, error: dict | None = None) -> Any:
    return CHECK.result(
        status, summary, measured=measured, expected=expected, series=series, details=details or [], error=error,
        meaning="A model that cannot memorise a single batch at any learning rate has a bug in the loop, the loss "
                "or the data; nothing at full scale is worth running until this passes.",
        next_test="If flat at every rate: gradient flow and parameter updates. If it stalls at a floor: look for "
                  "softmax before the loss or masked targets. If only a higher rate works: use it for debugging runs.")


def _line(s: Session, r: Run) -> str:
    raised = s.run_errors.get(run_key(r.factor))
    state = "reached" if r.reached else (f"raised {raised['type']}" if raised else
                                         "diverged" if not math.isfinite(r.last) else
                                         "rose" if r.unstable else "fell short")
    return f"{lr_text(s, r.factor)}: {r.first:.4g} -> {r.last:.4g} in {len(r.curve)} steps ({state})"


def _floor_note(r: Run) -> str:
    return f" (its floor under this loss is {r.floor:.3g})" if r.floor > 1e-3 else ""


def _flat(curve: list[float]) -> bool:
    tail = curve[-max(2, len(curve) // 4):]
    return all(math.isfinite(v) for v in tail) and (max(tail) - min(tail)) <= FLAT_TAIL * abs(tail[-1])


def _known_floor(s: Session, r: Run) -> str:
    """A floor a known bug puts under the loss, when the run sits on it."""
    c = contract_of(s)
    value = min(r.curve) if math.isfinite(r.last) else math.nan
    if not math.isfinite(value):
        return ""
    floors = []
    if s.spec.task in ("classification", "lm") and c.classes and c.classes > 1:
        k = c.classes  # lowest cross-entropy reachable from probabilities in [0, 1]
        floors.append((math.log(1 + (k - 1) / math.e),
                       "ln(1 + (k-1)/e), the floor of softmax (probabilities) fed into cross-entropy"))
    if s.spec.task == "binary" and c.loss_kind in ("bce_logits", "unknown"):
        targets = s.batch[1]
        if hasattr(targets, "float"):
            y = float(targets.float().mean())  # a sigmoid output in (0, 1) read as a logit
            floors.append((y * math.log(1 + math.exp(-1)) + (1 - y) * math.log(2),
                           "the floor of a sigmoid output fed into BCEWithLogitsLoss (probabilities read as logits)"))
    for level, why in floors:
        if abs(value - level) <= FLOOR_MATCH * level:
            return f"the loss sits at {level:.3f}, {why}"
    return ""
