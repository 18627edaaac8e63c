"""Check 2: the loss of the untrained model matches an uninformed predictor."""

from __future__ import annotations

import math
from typing import Any

from .base import FAIL, PASS, WARN, Check, rounded
from .contract import contract_of
from .session import Session
from .tensors import call_model, tensors_in

CHECK = Check("loss_at_init", "Loss at initialisation", ("karpathy-recipe/verify-loss-at-init", "cs231n/loss-at-chance"))

# Our thresholds (refs/diagnostics.md): within 25% passes, up to 2x above or down to half warns.
PASS_LOW, PASS_HIGH, WARN_LOW, WARN_HIGH = 0.75, 1.25, 0.5, 2.0
HALF_LOW, HALF_HIGH = 0.4, 0.6  # regression: half the reference, the 1/2 (y - y_hat)^2 convention


def expected_loss(s: Session) -> tuple[float | None, str]:
    """The loss of a predictor that knows nothing, and why."""
    task, targets = s.spec.task, s.batch[1]
    if task == "classification":
        return math.log(s.spec.num_classes), f"ln({s.spec.num_classes}) for {s.spec.num_classes}-way cross-entropy"
    if task == "lm":
        return math.log(s.spec.vocab_size), f"ln({s.spec.vocab_size}) for a {s.spec.vocab_size}-token vocabulary"
    if task == "binary":
        return math.log(2), "ln 2 for binary cross-entropy with logits near 0"
    if task == "regression" and hasattr(targets, "is_floating_point") and targets.is_floating_point():
        value = float((targets.double() ** 2).mean())
        return value, "mean(y^2) = Var(y) + mean(y)^2 for MSE with predictions near 0"
    return None, "no expected value for a custom task"


def _constant_guess(s: Session) -> float | None:
    """Var(y): the MSE of predicting the targets' mean everywhere (regression only)."""
    targets = s.batch[1]
    if s.spec.task != "regression" or not hasattr(targets, "is_floating_point") or not targets.is_floating_point():
        return None
    return float(targets.double().var(unbiased=False)) if targets.numel() > 1 else None


def run(s: Session) -> Any:
    import torch

    s.seeded()
    model = s.fresh_model(train=True)
    with torch.no_grad():
        output = call_model(model, s.batch[0])
        loss = float(s.output_loss(output, s.batch[1]))
    expected, why = expected_loss(s)
    measured: dict[str, Any] = {"loss": rounded(loss)}
    squashed = _squashed_output(s, s.primary(output))
    if not math.isfinite(loss):
        return _result(FAIL, f"the loss at initialisation is {loss}", measured, expected, why)
    if loss < 0 and expected is not None:  # cross-entropy and MSE cannot be negative; a critic's score or an NLL can
        return _result(FAIL, f"the loss is negative ({loss:.3g}): log-probabilities where logits belong, or a sign error",
                       measured, expected, why)
    if expected is None or expected <= 0:
        if squashed:
            return _result(FAIL, squashed, measured, expected, why, squashed=True)
        return CHECK.skip(f"loss at init is {loss:.4g}; {why}, so there is nothing to compare with")
    ratio = loss / expected
    measured["ratio_to_expected"] = rounded(ratio)
    spread = _constant_guess(s)  # MSE of the best single constant: an untrained model may sit there
    if ratio < PASS_LOW and spread is not None and loss >= PASS_LOW * spread:
        expected, why = spread, "Var(y) for MSE with predictions near one constant (up to mean(y^2) near 0)"
        ratio = loss / expected
        measured["ratio_to_expected"] = rounded(ratio)
    half = s.spec.task == "regression" and HALF_LOW <= ratio <= HALF_HIGH
    if PASS_LOW <= ratio <= PASS_HIGH or half:
        status = PASS
    elif WARN_LOW <= ratio <= WARN_HIGH:
        status = WARN
    else:
        status = FAIL
    summary = f"loss {loss:.4g} vs expected {expected:.4g} ({why}): {ratio:.2f}x"
    # a margin head (ArcFace, CosFace) or teacher forcing scores with the label in hand
    given = status == FAIL and not squashed and _targets_among_inputs(s)
    plain = _plain_cross_entropy(s, output, loss) if status == FAIL and not squashed and not given else None
    if squashed:
        status, summary = FAIL, squashed
    elif half:  # 0.5 * (y - y_hat)^2, and a Gaussian NLL at unit variance, are common and correct
        summary += ": half the MSE, as a 1/2 (y - y_hat)^2 loss (or a Gaussian NLL at unit variance) gives"
    elif ratio > PASS_HIGH:
        summary += "; too high: logits too large at init, a summed reduction, or unscaled targets"
    elif ratio < PASS_LOW:
        summary += ("; too low for an untrained model: the loss is measured wrong (masked targets counted in the "
                    "divisor, a reduction over the wrong axis) or the weights are not untrained (pretrained, or read "
                    "after updates)")
    if given:
        status = WARN
        summary += ("; but the model takes the targets as an input (a margin head such as ArcFace, or teacher "
                    "forcing), so an untrained model need not score like a uniform guess")
    elif plain is not None:
        status = WARN
        measured["plain_cross_entropy"] = rounded(plain)
        summary += (f"; but plain cross-entropy of the outputs is {plain:.4g} ({plain / expected:.2f}x): loss_fn "
                    f"rescales them first (an angular margin and scale, as ArcFace and CosFace losses do, or a "
                    f"temperature), which sets its own starting loss")
    return _result(status, summary, measured, expected, why, squashed=bool(squashed))


def _plain_cross_entropy(s: Session, output: Any, loss: float) -> float | None:
    """For a classifier whose loss_fn is the user's own: cross-entropy of the outputs as they are, when that is
    within the pass band of ln k while loss_fn is not (a margin or scale inside the loss), else None. A loss
    that is the plain one times the batch size (a summed reduction) stays a failure."""
    import torch
    import torch.nn.functional as F

    c = contract_of(s)
    targets = s.batch[1]
    if s.spec.task != "classification" or c.loss_kind != "unknown" or c.class_dim is None:
        return None
    try:
        with torch.no_grad():
            plain = float(F.cross_entropy(s.primary(output).float().movedim(c.class_dim, 1), targets))
    except Exception:  # noqa: BLE001 - outputs cross-entropy cannot read: no second opinion
        return None
    reference = math.log(s.spec.num_classes)
    summed = plain > 0 and abs(loss / plain - targets.numel()) <= 0.05 * targets.numel()
    return plain if PASS_LOW <= plain / reference <= PASS_HIGH and not summed else None


def _targets_among_inputs(s: Session) -> bool:
    """Whether one of the model's input tensors is the targets themselves (same shape and values)."""
    import torch

    targets = s.batch[1]
    if not isinstance(targets, torch.Tensor):
        return False
    return any(t is targets or (t.shape == targets.shape and t.dtype == targets.dtype and torch.equal(t, targets))
               for _, t in tensors_in(s.batch[0]))


def _result(status: str, summary: str, measured: dict, expected: float | None, why: str,
            squashed: bool = False) -> Any:
    if squashed:
        next_test = ("Return raw logits from the model, apply softmax/sigmoid only for predictions, then rerun "
                     "overfit_one_batch: the loss floor should disappear.")
    elif status == "pass":
        next_test = "Train on real vs zeroed inputs (input_dependence)."
    else:
        next_test = ("Print the logits' mean and std at init and the loss's reduction; for regression, the "
                     "targets' mean and std.")
    return CHECK.result(
        status, summary, measured=measured,
        expected={"loss": rounded(expected) if expected is not None else None, "why": why,
                  "pass_band": [PASS_LOW, PASS_HIGH]}, next_test=next_test,
        meaning="An untrained model knows nothing, so its loss must equal that of a uniform guess; "
                "a different value means the loss, the labels and the output layer are not wired as assumed.")


def _squashed_output(s: Session, logits: Any) -> str | None:
    """Probabilities where a logit loss expects logits: softmax/sigmoid applied twice."""
    import torch

    if not isinstance(logits, torch.Tensor) or not logits.is_floating_point() or logits.numel() < 16:
        return None
    task = s.spec.task
    finite = bool(logits.isfinite().all())
    if not finite:
        return None
    c = contract_of(s)
    dim = c.class_dim if c.class_dim is not None and c.class_dim < logits.ndim else logits.ndim - 1
    if task in ("classification", "lm") and logits.ndim >= 2 and logits.shape[dim] > 1 and c.loss_kind != "nll":
        rows = logits.sum(dim=dim)
        if bool((logits >= 0).all()) and bool(torch.allclose(rows, torch.ones_like(rows), atol=1e-3)):
            return ("the model outputs probabilities (non-negative rows summing to 1): a softmax before a loss "
                    "that applies its own softmax caps how far the loss can fall")
    if task == "binary" and c.loss_kind != "bce" and _sigmoid_output(s, logits):
        return ("every output lies in (0, 1): a sigmoid before BCEWithLogitsLoss squashes twice; "
                "feed raw logits to the loss")
    return None


# Autograd nodes that only move values around: the op behind the output lies further back.
SHAPE_OPS = ("View", "UnsafeView", "Reshape", "Squeeze", "Unsqueeze", "Transpose", "Permute", "Clone", "Select",
             "Slice", "Expand", "AsStrided", "Alias")


def _sigmoid_output(s: Session, logits: Any) -> bool:
    """The output comes out of a sigmoid: read from autograd, else guessed from values all in (0, 1)."""
    op = _last_op(s)  # None when the output has no autograd history to read
    if op is not None:
        return op.startswith("Sigmoid")
    return bool((logits > 0).all()) and bool((logits < 1).all())


def _last_op(s: Session) -> str | None:
    """The autograd node that produced the logits, past reshapes ('SigmoidBackward0', 'AddmmBackward0', ...)."""
    import torch

    try:
        model = s.fresh_model(train=False)
        with torch.enable_grad():
            node = s.primary(call_model(model, s.batch[0])).grad_fn
    except Exception:  # preflight reports a forward that raises
        return None
    while node is not None and type(node).__name__.startswith(SHAPE_OPS) and node.next_functions:
        node = node.next_functions[0][0]
    return type(node).__name__ if node is not None else None
