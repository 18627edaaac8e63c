"""Check 14: poisoning the test split must leave the preprocessed training data unchanged."""

from __future__ import annotations

import math
from typing import Any

from .base import FAIL, PASS, Check
from .session import Session
from .tensors import batch_size, content_tensors, map_tensors, take, tensors_in

CHECK = Check("leakage", "Leakage tracing by poisoning the test split", (
    "lones/leakage-scaling-feature-selection", "domingos/insidious-test-contamination"))

SENTINEL = 1e6  # a large finite value: NaN-skipping code (nanmean, scikit-learn scalers) still sees it


def run(s: Session) -> Any:
    import torch

    if s.spec.preprocess is None:
        return CHECK.skip("no 'preprocess' in the spec; add preprocess(train_inputs, test_inputs) to trace leakage")
    train = s.batch[0]
    if s.val_batch is not None:
        test = s.val_batch[0]
    else:
        half = batch_size(train) // 2
        if half < 1:
            return CHECK.skip("need a val_batch, or a batch of at least two samples to split")
        train, test = take(train, slice(0, half)), take(train, slice(half, None))
    if not any(t.is_floating_point() for _, t in content_tensors(test)):
        return CHECK.skip("the test inputs hold no float tensor to poison")
    reference = _train_out(s, train, test)
    verdicts = {}
    for label, value in (("sentinel", SENTINEL), ("nan", math.nan)):
        poisoned = map_tensors(test, lambda _, t, v=value: torch.full_like(t, v) if t.is_floating_point() else t)
        verdicts[label] = _changed(reference, _train_out(s, train, poisoned))
    measured = {f"train_values_changed_by_{k}": v for k, v in verdicts.items()}
    measured["train_values"] = sum(t.numel() for _, t in tensors_in(reference))
    if any(verdicts.values()):
        worst = max(verdicts, key=verdicts.get)
        status = FAIL
        summary = (f"poisoning the test split ({worst}) changed {verdicts[worst]} of {measured['train_values']} "
                   "preprocessed training values: statistics are fitted on data that includes the test rows")
    else:
        status, summary = PASS, "poisoning the test split with a sentinel and with NaN left the training data unchanged"
    return CHECK.result(
        status, summary, measured=measured, expected={"train_values_changed": 0},
        meaning="Anything fitted during preprocessing (means, stds, vocabularies, selected features) must come "
                "from the training rows only, or the test score is optimistic.",
        next_test="Fit the scaler/encoder on the training split only, then transform both splits with it.")


def _train_out(s: Session, train: Any, test: Any) -> Any:
    import torch

    clone = lambda _, t: t.clone()  # noqa: E731 - preprocess may edit its arguments in place
    out = s.spec.preprocess(map_tensors(train, clone), map_tensors(test, clone))
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("preprocess must return (train_inputs, test_inputs)")
    return torch.as_tensor(out[0]) if _is_array(out[0]) else out[0]


def _is_array(value: Any) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "shape")


def _changed(a: Any, b: Any) -> int:
    import torch

    total = 0
    for (_, x), (_, y) in zip(tensors_in(a), tensors_in(b)):
        if x.shape != y.shape:
            return max(x.numel(), y.numel())
        same = (x == y) | (torch.isnan(x) & torch.isnan(y)) if x.is_floating_point() else (x == y)
        total += int((~same).sum())
    return total
