"""Check 1: the batch is what the task needs (shapes, ranges, non-finite values, labels)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from .base import FAIL, WARN, Check, rounded
from .contract import contract_of
from .session import Session
from .tensors import content_tensors, tensors_in

CHECK = Check("batch_sanity", "Batch sanity", (
    "karpathy-recipe/visualize-just-before-the-net", "unsloth/all-labels-masked", "slavv/verify-input-then-overfit-small"))

IMBALANCE_WARN, IMBALANCE_FAIL = 10.0, 100.0  # our thresholds (refs/diagnostics.md, batch sanity)
PIXEL_FLOOR, LARGE_INPUT = 10.0, 100.0  # our thresholds: standardised data rarely leaves [-10, 10]
MIN_PER_CLASS = 5  # below this expected count per class, one batch cannot judge balance


def run(s: Session) -> Any:
    inputs, targets = s.batch
    problems: list[tuple[str, str]] = []  # (status, sentence)
    # A dict batch holds its labels among the inputs already: describe them once.
    shown = {"inputs": inputs} if s.dict_batch else {"inputs": inputs, "targets": targets}
    measured = {"tensors": [_describe(path, t) for path, t in tensors_in(shown)]}
    for row in measured["tensors"]:
        if row.get("nonfinite"):
            problems.append((FAIL, f"{row['path']} holds {row['nonfinite']} NaN/Inf values"))
    problems += _input_problems(inputs, functools.cache(lambda: _first_layer_extent(s)))  # one forward at most
    problems += _target_problems(s, inputs, targets, measured)
    if not s.forward_failed:  # else the next check reports the failing forward, once
        problems += _output_width(s)
    return CHECK.verdict(
        problems, "inputs and targets look consistent with the task", measured=measured,
        expected={"nonfinite": 0, "class_ratio_warn": IMBALANCE_WARN, "class_ratio_fail": IMBALANCE_FAIL},
        meaning="What enters the model is the only ground truth: a broken batch makes every later check meaningless.",
        next_test="Fix the pipeline at the point the batch is built, then rerun; next check the loss at initialisation.")


def _describe(path: str, t: Any) -> dict[str, Any]:
    import torch

    row: dict[str, Any] = {"path": path, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
    if t.is_floating_point() and t.numel():
        finite = t[t.isfinite()].double()
        row["nonfinite"] = int(t.numel() - finite.numel())
        if finite.numel():
            row.update(min=rounded(finite.min().item()), max=rounded(finite.max().item()),
                       mean=rounded(finite.mean().item()), std=rounded(finite.std().item()) if finite.numel() > 1 else 0.0)
    elif t.numel() and t.dtype != torch.bool:
        row.update(min=int(t.min()), max=int(t.max()))
    return row


def _input_problems(inputs: Any, seen_extent: Callable[[], float | None]) -> list[tuple[str, str]]:
    """`seen_extent()`: the largest |value| the model's first weighted layer receives (None: not measured); a model
    that standardises or rescales its own input (`(x - self.mean) / self.std`, `x / 255` in forward, a norm layer
    first) is fed raw data on purpose."""
    out = []
    for path, t in content_tensors(inputs):
        if t.ndim == 0 or t.shape[0] < 2:
            continue
        flat = t.reshape(t.shape[0], -1)
        if bool((flat == flat[:1]).all()):
            out.append((FAIL, f"every sample of inputs {path} is identical: the pipeline feeds a constant"))
            continue
        if t.is_floating_point():
            finite = t[t.isfinite()]
            if finite.numel() == 0:
                continue
            lo, hi = finite.min().item(), finite.max().item()
            integral = bool((finite == finite.round()).float().mean() > 0.99)
            image_like = t.ndim >= 3
            raw = lo >= 0 and PIXEL_FLOOR < hi <= 255 and (integral or image_like)
            reach = max(abs(lo), abs(hi))
            if (raw or reach > LARGE_INPUT) and _scaled_inside(seen_extent):
                continue
            if raw:
                out.append((FAIL, f"inputs {path} lie in [{lo:.3g}, {hi:.3g}]: raw 0-255 pixel intensities; "
                                  "scale to [0, 1] or standardise them"))
            elif reach > LARGE_INPUT:
                out.append((WARN, f"inputs {path} reach {reach:.3g}: standardise features to about unit scale"))
    return out


def _scaled_inside(seen_extent: Callable[[], float | None]) -> bool:
    extent = seen_extent()
    return extent is not None and extent <= PIXEL_FLOOR


NORM_LAYERS = ("BatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm", "RMSNorm", "LocalResponseNorm")


def _first_layer_extent(s: Session) -> float | None:
    """The largest |value| entering the first module with its own weights that the forward calls (an embedding's
    indices excepted), on a copy of the model in eval mode; 0 when that module is a normalisation layer (it
    standardises what it gets). None when the forward fails or no such module runs."""
    import torch

    if s.forward_failed:
        return None
    model = s.fresh_model(train=False)
    seen: list[tuple[Any, float]] = []

    def record(module: Any, args: tuple) -> None:
        if not seen:
            floats = [a for a in args if torch.is_tensor(a) and a.is_floating_point() and a.numel()]
            if floats:
                seen.append((module, max(float(a.detach().abs().max()) for a in floats)))

    handles = [m.register_forward_pre_hook(record) for m in model.modules()
               if next(m.parameters(recurse=False), None) is not None and not isinstance(m, torch.nn.Embedding)]
    try:
        with torch.no_grad():
            s.logits(model, s.batch[0])
    except Exception:  # the forward's own failure is reported by the checks that run it
        return None
    finally:
        for handle in handles:
            handle.remove()
    if not seen:
        return None
    module, extent = seen[0]
    return 0.0 if type(module).__name__.startswith(NORM_LAYERS) else extent


def _target_problems(s: Session, inputs: Any, targets: Any, measured: dict) -> list[tuple[str, str]]:
    import torch

    task, spec = s.spec.task, s.spec
    if not isinstance(targets, torch.Tensor) or task == "custom":
        return []
    if task in ("classification", "lm"):
        k = spec.num_classes if task == "classification" else spec.vocab_size
        return _label_problems(targets, k, contract_of(s).ignore_index, measured, "vocab_size" if task == "lm" else "num_classes") + (
            _shift_problems(s, inputs, targets) if task == "lm" else [])
    if task == "binary":
        if not targets.is_floating_point():
            return [(WARN, "binary targets are integers: BCEWithLogitsLoss needs float targets in [0, 1]")]
        if targets.min() < 0 or targets.max() > 1:
            return [(FAIL, f"binary targets span [{targets.min().item():g}, {targets.max().item():g}], outside [0, 1]")]
        positive = float((targets > 0.5).float().mean())
        measured["positive_rate"] = rounded(positive)
        return _balance([positive * targets.numel(), (1 - positive) * targets.numel()], measured)
    if task == "regression" and not targets.is_floating_point():
        return [(WARN, f"regression targets have dtype {targets.dtype}: MSE needs float targets")]
    return []


def _output_width(s: Session) -> list[tuple[str, str]]:
    """The model's class axis (as the loss reads it, see contract) must have num_classes (or vocab_size) entries."""
    task, c = s.spec.task, contract_of(s)
    if task not in ("classification", "lm") or c.class_dim is None or c.output_shape is None:
        return []
    width, k = c.output_shape[c.class_dim], c.classes
    if width != k:
        name = "num_classes" if task == "classification" else "vocab_size"
        return [(FAIL, f"the model outputs {width} scores per {'sample' if task == 'classification' else 'position'} "
                       f"(logits {list(c.output_shape)}, class axis {c.class_dim}: {c.class_how}) but {name} is {k}: "
                       "the head and the label set disagree")]
    return []


def _label_problems(targets: Any, k: int, ignore: int, measured: dict, k_name: str) -> list[tuple[str, str]]:
    import torch

    if targets.is_floating_point():
        return [(WARN, f"targets are float {tuple(targets.shape)}: cross-entropy reads float targets as class "
                       "probabilities; pass int64 class indices")]
    kept = targets[targets != ignore]
    measured["ignored_fraction"] = rounded(1 - kept.numel() / max(1, targets.numel()))
    if kept.numel() == 0:
        return [(FAIL, f"every target equals the ignore index {ignore}: the loss is 0 or NaN and nothing is learnt")]
    lo, hi = int(kept.min()), int(kept.max())
    if lo < 0 or hi >= k:
        return [(FAIL, f"labels span [{lo}, {hi}] but {k_name} is {k}: labels must lie in [0, {k - 1}]")]
    out = []
    if measured["ignored_fraction"] > 0.9:
        out.append((WARN, f"{measured['ignored_fraction']:.0%} of targets are ignored: check the label mask"))
    counts = torch.bincount(kept.flatten(), minlength=k)
    if kept.numel() >= 8 and int((counts > 0).sum()) == 1 and k > 1:
        out.append((FAIL, f"all {kept.numel()} labels in the batch are class {int(counts.argmax())}: unshuffled or broken labels"))
    elif k_name == "num_classes" and kept.numel() >= MIN_PER_CLASS * k:
        out += _balance(counts.tolist(), measured)
    return out


def _balance(counts: list[float], measured: dict) -> list[tuple[str, str]]:
    present = [c for c in counts if c > 0]
    if len(present) < 2:
        return []
    ratio = max(present) / min(present)
    measured["class_ratio"] = rounded(ratio)
    if ratio >= IMBALANCE_FAIL:
        return [(FAIL, f"largest to smallest class is {ratio:.0f}:1 in this batch")]
    if ratio >= IMBALANCE_WARN:
        return [(WARN, f"largest to smallest class is {ratio:.0f}:1 in this batch: report per-class metrics")]
    return []


def _shift_problems(s: Session, inputs: Any, targets: Any) -> list[tuple[str, str]]:
    """Probe the loss with fake logits laid out as the model's: copying the current token must not score well."""
    import torch

    tokens = next((t for _, t in content_tensors(inputs) if not t.is_floating_point()), None)
    if tokens is None or tokens.shape != targets.shape or tokens.ndim != 2:
        return []
    k = s.spec.vocab_size
    if int(tokens.max()) >= k or int(tokens.min()) < 0:
        return [(FAIL, f"input token ids reach {int(tokens.max())} but vocab_size is {k}")]
    c = contract_of(s)
    # the model shifts inside its own loss (Hugging Face: labels = input_ids): no logits to fake
    if s.model_loss or c.class_dim is None:
        return []
    d = c.in_seq_dim if c.in_seq_dim is not None and c.in_seq_dim < tokens.ndim else 1
    length = tokens.shape[d]
    nxt = torch.cat([tokens.narrow(d, 1, length - 1), tokens.narrow(d, length - 1, 1)], dim=d)
    copy_loss = c.best_loss(s.loss_fn, tokens, targets)
    next_loss = c.best_loss(s.loss_fn, nxt, targets)
    if math.isfinite(copy_loss) and copy_loss - c.floor < 0.1 * math.log(k) and not next_loss < copy_loss:
        return [(FAIL, "the loss rewards predicting the current input token: LM targets are not shifted by one "
                       f"(loss {copy_loss:.3g} for copying the input, {next_loss:.3g} for predicting the next token)")]
    return []
