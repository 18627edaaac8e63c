"""What the spec's loss and the model's output say about the logits, read rather than assumed.

- The class axis. CrossEntropyLoss takes logits (N, C) or (N, C, d1, ...) with targets (N, d1, ...),
  so a language model may return (B, V, T); a loss_fn that flattens takes (B, T, V). The class axis is
  the one whose removal leaves the targets' shape, of size num_classes or vocab_size; when several
  fit, confident fake logits along each are handed to the loss and the one it scores best wins.
- The sequence axes: where the inputs' sequence runs (seq_dim, else 1), and the logits' axis that
  follows it (the targets' axis, counted past the class axis).
- The loss floor: the lowest loss a perfect prediction of the targets reaches under this loss
  (label smoothing and soft targets keep it above 0), found by handing the loss such predictions.
- ignore_index and label_smoothing as the loss module (or a functools.partial) holds them.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

from .tensors import content_tensors

SCALES = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0)  # confidence of the fake logits
CLASS_TASKS = ("classification", "lm")


@dataclass(frozen=True)
class Contract:
    """The logits' layout and the loss's facts for one spec (axes are non-negative indices)."""

    output_shape: tuple[int, ...] | None = None
    classes: int | None = None
    class_dim: int | None = None
    class_how: str = ""
    in_seq_dim: int | None = None
    out_seq_dim: int | None = None
    seq_how: str = ""
    loss_name: str = ""
    loss_kind: str = "unknown"
    ignore_index: int = -100
    label_smoothing: float | None = None
    class_weight: Any = None  # the loss's per-class weights (a weighted mean divides by their sum)
    floor: float = 0.0
    floor_how: str = "not established; 0 assumed"

    def confident(self, labels: Any, scale: float = 30.0) -> Any:
        """Logits that put `scale` on each label along the class axis (labels shaped like the targets)."""
        import torch

        safe = labels.clamp(0, self.classes - 1) if labels.numel() else labels
        logits = torch.nn.functional.one_hot(safe.long(), self.classes).float() * scale
        return logits.movedim(-1, self.class_dim)

    def best_loss(self, loss_fn: Any, labels: Any, targets: Any) -> float:
        """The lowest loss over SCALES of confident predictions of `labels`, scored against `targets`
        (NaN when the loss refuses them): with label smoothing the best confidence is finite."""
        values = []
        for scale in SCALES:
            values.append(probe_loss(loss_fn, self.confident(labels, scale).to(targets.device), targets))
            if not math.isfinite(values[-1]) and len(values) == 1:
                return math.nan  # refused outright: no point in other scales
        finite = [v for v in values if math.isfinite(v)]
        return min(finite) if finite else math.nan

    def class_targets_fit(self, targets: Any) -> bool:
        """The targets are class indices laid out as the logits without their class axis."""
        return (self.class_dim is not None and hasattr(targets, "shape") and not targets.is_floating_point()
                and tuple(targets.shape) == _without(self.output_shape, self.class_dim))


def probe_loss(loss_fn: Any, fake: Any, targets: Any) -> float:
    """loss_fn on fake logits, quietly: NaN when it refuses them (a loss that reads the model's output
    object, or another layout); its warnings are about the fake, not the user's code."""
    import torch

    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(loss_fn(fake, targets))
    except Exception:
        return math.nan


def contract_of(s: Any) -> Contract:
    """The session's contract, read once (one forward in eval mode, a few calls of the loss on fake logits)."""
    if "contract" not in s.memo:
        s.memo["contract"] = _read(s)
    return s.memo["contract"]


def _read(s: Any) -> Contract:
    import torch

    spec = s.spec
    name, kind, ignore, smoothing = loss_facts(None if s.model_loss else spec.loss_fn)
    facts = dict(loss_name=name, loss_kind=kind, label_smoothing=smoothing, class_weight=_class_weight(s.loss_fn),
                 ignore_index=spec.ignore_index if ignore is None else ignore)
    try:
        model = s.fresh_model(train=False)
        with torch.no_grad():
            logits = s.logits(model, s.batch[0])
    except Exception:  # preflight reports a forward that raises; nothing to read here
        return Contract(**facts)
    if not isinstance(logits, torch.Tensor):
        return Contract(**facts)
    shape = tuple(logits.shape)
    targets = s.batch[1]
    tgt_shape = tuple(targets.shape) if isinstance(targets, torch.Tensor) else None
    k = spec.num_classes if spec.task == "classification" else spec.vocab_size if spec.task == "lm" else None
    base = Contract(output_shape=shape, classes=k, **facts)
    class_dim, class_how = (None, "")
    if k is not None and shape:
        class_dim, class_how = _class_axis(s, base, shape, tgt_shape, k)
    in_dim, out_dim, seq_how = _seq_axes(s, shape, tgt_shape, class_dim)
    found = Contract(output_shape=shape, classes=k, class_dim=class_dim, class_how=class_how, in_seq_dim=in_dim,
                     out_seq_dim=out_dim, seq_how=seq_how, **facts)
    floor, floor_how = _floor(s, found, logits)
    return replace(found, floor=floor, floor_how=floor_how)


def loss_facts(loss_fn: Any) -> tuple[str, str, int | None, float | None]:
    """(name, kind, ignore_index, label_smoothing) of a torch loss module, function or partial of one;
    kind 'unknown' (and None facts) for the user's own function."""
    import torch.nn as nn
    import torch.nn.functional as F

    if loss_fn is None:
        return "the model's own loss", "model", None, None
    fn, keywords = loss_fn, {}
    if isinstance(fn, functools.partial):
        fn, keywords = fn.func, dict(fn.keywords)
    modules = ((nn.CrossEntropyLoss, "cross_entropy"), (nn.NLLLoss, "nll"), (nn.BCEWithLogitsLoss, "bce_logits"),
               (nn.BCELoss, "bce"), (nn.MSELoss, "elementwise"), (nn.L1Loss, "elementwise"),
               (nn.SmoothL1Loss, "elementwise"), (nn.HuberLoss, "elementwise"))
    for cls, kind in modules:
        if isinstance(fn, cls):
            return f"nn.{cls.__name__}", kind, getattr(fn, "ignore_index", None), getattr(fn, "label_smoothing", None)
    functions = ((F.cross_entropy, "cross_entropy"), (F.nll_loss, "nll"),
                 (F.binary_cross_entropy_with_logits, "bce_logits"), (F.binary_cross_entropy, "bce"),
                 (F.mse_loss, "elementwise"), (F.l1_loss, "elementwise"), (F.smooth_l1_loss, "elementwise"))
    for function, kind in functions:
        if fn is function:
            classy = kind in ("cross_entropy", "nll")
            return (f"F.{function.__name__}", kind, keywords.get("ignore_index", -100) if classy else None,
                    keywords.get("label_smoothing", 0.0) if kind == "cross_entropy" else None)
    return getattr(fn, "__name__", type(fn).__name__), "unknown", None, None


def _class_weight(loss_fn: Any) -> Any:
    """The `weight` tensor of a CrossEntropyLoss/NLLLoss module, or of a partial of F.cross_entropy/nll_loss."""
    import torch

    if isinstance(loss_fn, functools.partial):
        weight = loss_fn.keywords.get("weight")
    else:
        weight = getattr(loss_fn, "weight", None) if isinstance(loss_fn, (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss)) else None
    return weight.detach() if isinstance(weight, torch.Tensor) else None


def _without(shape: tuple[int, ...] | None, axis: int | None) -> tuple[int, ...] | None:
    if shape is None or axis is None:
        return None
    return shape[:axis] + shape[axis + 1:]


def _class_axis(s: Any, base: Contract, shape: tuple, tgt_shape: tuple | None, k: int) -> tuple[int | None, str]:
    fits = [a for a in range(len(shape)) if tgt_shape is not None and _without(shape, a) == tgt_shape]
    sized = [a for a in fits if shape[a] == k]
    if len(sized) == 1:
        return sized[0], f"the axis of size {k} whose removal leaves the targets' shape {list(tgt_shape)}"
    if len(sized) > 1:
        probed = _probe_class_axis(s, base, sized)
        if probed is not None:
            return probed, f"of the axes of size {k}, the one on which {base.loss_name} scores the true labels best"
    if len(fits) == 1:
        return fits[0], f"the axis whose removal leaves the targets' shape {list(tgt_shape)}"
    if base.loss_kind in ("cross_entropy", "nll") and len(shape) > 2:
        return 1, f"{base.loss_name} reads the class scores at dim 1 for logits of rank > 2"
    if s.spec.task == "lm":
        return len(shape) - 1, "the last axis (no axis fits the targets' shape)"
    return (1, "dim 1 (no axis fits the targets' shape)") if len(shape) >= 2 else (0, "the only axis")


def _probe_class_axis(s: Any, base: Contract, axes: list[int]) -> int | None:
    targets = s.batch[1]
    if s.model_loss or targets.is_floating_point():
        return None
    scores = {}
    for axis in axes:
        probe = Contract(output_shape=base.output_shape, classes=base.classes, class_dim=axis)
        scores[axis] = probe_loss(s.loss_fn, probe.confident(targets), targets)
    finite = {a: v for a, v in scores.items() if math.isfinite(v)}
    return min(finite, key=finite.get) if finite else None


def _seq_axes(s: Any, shape: tuple, tgt_shape: tuple | None, class_dim: int | None) -> tuple[int | None, int | None, str]:
    """(inputs' sequence axis, logits' sequence axis, how): the logits' axis of the same length that the
    targets' sequence axis becomes once the class axis is counted."""
    content = [t for _, t in content_tensors(s.batch[0])]
    in_dim = s.spec.seq_dim if s.spec.seq_dim is not None else 1
    given = "seq_dim" if s.spec.seq_dim is not None else "dim 1 by default (batch first; set seq_dim otherwise)"
    long = [t for t in content if t.ndim > in_dim]
    if not long:
        return None, None, f"the inputs have no axis {in_dim} ({given})"
    length = long[0].shape[in_dim]
    if class_dim is not None and tgt_shape is not None and len(tgt_shape) == len(shape) - 1 and in_dim < len(tgt_shape):
        axis = [a for a in range(len(shape)) if a != class_dim][in_dim]
        if shape[axis] == length:
            return in_dim, axis, f"inputs along dim {in_dim} ({given}); logits along dim {axis}, the targets' dim {in_dim} past the class axis {class_dim}"
    if in_dim < len(shape) and in_dim != class_dim and shape[in_dim] == length:
        return in_dim, in_dim, f"inputs and outputs along dim {in_dim} ({given})"
    same = [a for a in range(1, len(shape)) if a != class_dim and shape[a] == length]
    if len(same) == 1:
        return in_dim, same[0], f"inputs along dim {in_dim} ({given}); outputs along dim {same[0]}, the only one of length {length}"
    return in_dim, None, f"no output axis of the inputs' sequence length {length} (inputs along dim {in_dim}, {given})"


def _floor(s: Any, c: Contract, logits: Any) -> tuple[float, str]:
    """The lowest loss a perfect prediction of the targets gets, probed with the loss itself."""
    import torch

    targets = s.batch[1]
    if s.model_loss or not isinstance(targets, torch.Tensor) or not logits.is_floating_point():
        return 0.0, "not established (no loss_fn to probe); 0 assumed"
    if s.spec.task in CLASS_TASKS and c.class_targets_fit(targets):
        best = c.best_loss(s.loss_fn, targets, targets)
        if math.isfinite(best):
            return max(0.0, best), "the loss of confident predictions of the true labels"
        return 0.0, "not established (the loss does not take bare logits); 0 assumed"
    candidates = []
    if targets.is_floating_point() and targets.numel() == logits.numel():
        perfect = targets.reshape(logits.shape).to(logits.dtype)
        candidates = [perfect]
        if s.spec.task == "binary":
            candidates.append(torch.logit(perfect.clamp(1e-4, 1 - 1e-4)))
    how = "the loss of predictions equal to the targets"
    values = [probe_loss(s.loss_fn, fake.to(logits.device), targets) for fake in candidates]
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, "not established (the loss does not take bare logits); 0 assumed"
    return max(0.0, min(finite)), how
