"""Predictions with a known score, built from the targets, for checking a metric.

- perfect: every sample predicted right, as the model's outputs would say it (logits laid out as the
  contract read them; probabilities when the outputs are probabilities). Binary and multi-label
  predictions get a spread of confidences, logits from 0.08 up: right under a 0 threshold on logits (or
  0.5 on probabilities) and wrong under 0.5 on logits, the usual bug.
- constant: one prediction for every sample (the most frequent class, every label positive, the
  targets' mean): never perfect unless the targets are all the same.
- shuffled: the perfect predictions of the next sample (rolled by one along the batch axis): right
  answers paired with the wrong samples.

Only for the tasks whose targets say what a perfect output is: classification and lm with class-index
targets (segmentation included: the class axis is read, not assumed), binary and multi-label with 0/1
targets, regression. Not for custom tasks, soft-label classification, or a model that computes its own
language-model loss (it may shift the labels inside, so which position predicts which label is unknown).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .contract import contract_of, probe_loss

CONFIDENCE = 8.0  # logit margin of the perfect class predictions (argmax does not care)
LOW, HIGH = 0.52, 0.98  # probabilities given to the right answer of binary predictions, evenly spread


@dataclass(frozen=True)
class Probes:
    """Constructed predictions (None when this batch cannot give one) and how they were built."""

    targets: Any
    perfect: Any
    constant: Any
    shuffled: Any
    how: str
    constant_how: str


def build(s: Any) -> Probes | str:
    """The probes for this spec, or the reason none can be built."""
    import torch

    targets = s.batch[1]
    task = s.spec.task
    if not isinstance(targets, torch.Tensor):
        return "the targets are not one tensor, so no perfect prediction can be built from them"
    if task == "custom":
        return ("task 'custom' declares no target format, so no perfect prediction can be built; declare "
                "task classification, binary or regression to check the metric on constructed predictions")
    if task == "lm" and s.model_loss:
        return ("the model computes its own language-model loss, which may shift the labels inside: which "
                "position predicts which label is unknown, so no perfect prediction is built")
    c = contract_of(s)
    if c.output_shape is None:
        return "the model's output is not a tensor of logits, so no prediction can be built in its layout"
    if task in ("classification", "lm"):
        probes = _classes(c, targets)
    elif task == "binary":
        probes = _binary(s, c, targets)
    else:
        probes = _regression(c, targets)
    return _confirmed(s, probes) if isinstance(probes, Probes) else probes


def _classes(c: Any, targets: Any) -> Probes | str:
    if not c.class_targets_fit(targets):
        return (f"targets shaped {list(targets.shape)} ({targets.dtype}) are not class indices laid out as the "
                f"logits {list(c.output_shape)} without a class axis (soft labels?): no perfect prediction is built")
    valid = targets[targets != c.ignore_index]
    perfect = c.confident(targets, CONFIDENCE)
    constant, constant_how = None, ""
    if valid.numel() and bool((valid != valid[0]).any()):
        mode = int(valid.mode().values)
        constant = c.confident(torch_full(targets, mode), CONFIDENCE)
        constant_how = f"class {mode} (the most frequent) for every sample"
    how = f"confident logits of the true labels along dim {c.class_dim} ({c.class_how})"
    return Probes(targets, perfect, constant, _rolled(perfect, targets), how, constant_how)


def _binary(s: Any, c: Any, targets: Any) -> Probes | str:
    import torch

    if targets.numel() != math.prod(c.output_shape) or not bool(((targets == 0) | (targets == 1)).all()):
        return (f"binary targets shaped {list(targets.shape)} are not 0/1 values matching the outputs "
                f"{list(c.output_shape)} one for one, so no perfect prediction is built")
    labels = targets.reshape(c.output_shape).float()
    right = torch.empty_like(labels).reshape(-1)
    flat = labels.reshape(-1)
    for value in (0.0, 1.0):  # positives and negatives each get the whole spread of confidences
        where = (flat == value).nonzero().flatten()
        right[where] = torch.linspace(LOW, HIGH, max(2, len(where)))[:len(where)]
    right = right.reshape(labels.shape)
    probability = torch.where(labels == 1, right, 1 - right)
    probabilities = _outputs_are_probabilities(s, c)
    as_output = (lambda p: p) if probabilities else (lambda p: torch.logit(p))
    kind = "probabilities" if probabilities else "logits"
    perfect = as_output(probability)
    constant = as_output(torch.full_like(probability, HIGH)) if bool((labels == 0).any()) else None
    how = f"{kind} on the right side of the boundary, confidences {LOW} to {HIGH}, logits from 0.08 up"
    return Probes(targets, perfect, constant, _rolled(perfect, targets), how, "every label positive")


def _regression(c: Any, targets: Any) -> Probes | str:
    if not targets.is_floating_point() or targets.numel() != math.prod(c.output_shape):
        return (f"regression targets shaped {list(targets.shape)} ({targets.dtype}) do not match the outputs "
                f"{list(c.output_shape)} value for value, so no perfect prediction is built")
    perfect = targets.reshape(c.output_shape).float()
    mean = perfect.mean(0, keepdim=True).expand_as(perfect)
    constant = mean.clone() if bool((perfect != mean).any()) else None
    return Probes(targets, perfect, constant, _rolled(perfect, targets), "the targets themselves",
                  "the targets' mean over the batch for every sample")


def _rolled(perfect: Any, targets: Any) -> Any:
    """The next sample's perfect prediction; None when every sample has the same target."""
    if perfect.ndim == 0 or perfect.shape[0] < 2 or bool((targets.roll(1, 0) == targets).all()):
        return None
    return perfect.roll(1, 0)


def _outputs_are_probabilities(s: Any, c: Any) -> bool:
    """BCELoss takes probabilities, BCEWithLogitsLoss logits; otherwise the untrained outputs tell."""
    if c.loss_kind in ("bce", "bce_logits"):
        return c.loss_kind == "bce"
    import torch

    model = s.fresh_model(train=False)
    with torch.no_grad():
        out = s.logits(model, s.batch[0])
    return bool(out.min() >= 0 and out.max() <= 1)


def _confirmed(s: Any, p: Probes) -> Probes | str:
    """The loss must agree that the perfect predictions beat the shuffled ones, else the layout assumed
    here is not the loss's (a loss that refuses bare tensors cannot tell, and is not asked)."""
    device = p.targets.device
    probes = Probes(p.targets, *(t.to(device) if t is not None else None for t in (p.perfect, p.constant, p.shuffled)),
                    p.how, p.constant_how)
    if s.model_loss or probes.shuffled is None:
        return probes
    best, other = (probe_loss(s.loss_fn, t, p.targets) for t in (probes.perfect, probes.shuffled))
    if math.isfinite(best) and math.isfinite(other) and not best < other:
        return (f"the loss scores the constructed perfect predictions ({best:.4g}) no better than shuffled ones "
                f"({other:.4g}): the outputs are not laid out as assumed ({probes.how}), so none is used")
    return probes


def torch_full(like: Any, value: int) -> Any:
    import torch

    return torch.full_like(like, value)
