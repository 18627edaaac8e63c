"""DebugSpec: what a user hands to diagnose, and its validation.

Importing this module does not import torch, so `mldebug_mcp.DebugSpec` is free to import.
A plain dict with the same keys is accepted everywhere a DebugSpec is.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

from .batch_format import split_batch
from .model_loss import MODEL_LOSS, computes_own_loss

TASKS = ("classification", "binary", "regression", "lm", "custom")


class SpecError(ValueError):
    """The debug spec is malformed; the message names the key and how to fix it."""


@dataclass
class DebugSpec:
    """A small, complete training setup to diagnose.

    model: the nn.Module; batch: (inputs, targets), or a dict as Hugging Face collators build it
    ({"input_ids": ..., "attention_mask": ..., "labels": ...}: passed whole to the model as keywords,
    its "labels" are the targets); loss_fn(outputs, targets) -> scalar, or "model" (the default) when
    the model computes its own loss from the labels in its inputs and returns it as `.loss` or
    `["loss"]` (Hugging Face models); optimizer: callable(params) -> Optimizer (default Adam, lr 3e-4);
    task: classification (with num_classes), binary, regression, lm (with vocab_size) or custom.
    metric: metric(logits, targets) -> number, best at 1.0 (or 100), or (metric, perfect_value) when
    its best value is another (0.0 for an error rate or a distance); logits as read from the output.
    Outputs may be a tensor of logits, a tuple whose first item is the logits, or an object or dict
    with `.logits` (a Hugging Face ModelOutput).
    """

    model: Any
    batch: Any
    loss_fn: Callable[..., Any] | str | None = MODEL_LOSS
    task: str = "custom"
    optimizer: Any = None
    num_classes: int | None = None
    vocab_size: int | None = None
    val_batch: Any = None
    seq_dim: int | None = None
    causal: bool | None = None
    preprocess: Callable[..., Any] | None = None
    train_step: Callable[..., Any] | None = None
    gradcheck: dict[str, Any] | None = None
    device: str | None = None
    ignore_index: int = -100
    metric: Any = None

    @property
    def is_causal(self) -> bool:
        return self.task == "lm" if self.causal is None else bool(self.causal)


SPEC_KEYS = tuple(f.name for f in fields(DebugSpec))


def as_spec(value: Any) -> DebugSpec:
    """Turn a DebugSpec or a plain dict into a validated DebugSpec, or raise SpecError."""
    if isinstance(value, DebugSpec):
        spec = value
    elif isinstance(value, dict):
        unknown = sorted(set(value) - set(SPEC_KEYS))
        if unknown:
            raise SpecError(f"unknown key(s) {unknown} in the debug spec; allowed keys: {', '.join(SPEC_KEYS)}")
        missing = [k for k in ("model", "batch") if k not in value]
        if missing:
            raise SpecError(f"the debug spec lacks {missing}: return a dict with at least model and batch, and "
                            f"loss_fn unless the model computes its own loss (loss_fn={MODEL_LOSS!r})")
        spec = DebugSpec(**value)
    else:
        raise SpecError(
            f"the debug spec function returned {type(value).__name__}; return a dict (or DebugSpec) "
            "with model, batch=(inputs, targets), loss_fn and task"
        )
    _validate(spec)
    return spec


def _validate(spec: DebugSpec) -> None:
    import torch

    if not isinstance(spec.model, torch.nn.Module):
        raise SpecError(f"'model' must be a torch.nn.Module, got {type(spec.model).__name__}")
    _check_batch("batch", spec.batch)
    if spec.val_batch is not None:
        _check_batch("val_batch", spec.val_batch)
    if not (callable(spec.loss_fn) or computes_own_loss(spec.loss_fn)):
        raise SpecError(f"'loss_fn' must be callable as loss_fn(outputs, targets) -> scalar tensor, or {MODEL_LOSS!r} "
                        "when the model computes its own loss from labels in its inputs (Hugging Face models)")
    if spec.task not in TASKS:
        raise SpecError(f"'task' is {spec.task!r}; use one of {', '.join(TASKS)}")
    if spec.task == "classification" and not _positive_int(spec.num_classes):
        raise SpecError("task 'classification' needs 'num_classes' (a positive int)")
    if spec.task == "lm" and not _positive_int(spec.vocab_size):
        raise SpecError("task 'lm' needs 'vocab_size' (a positive int)")
    for key in ("preprocess", "train_step"):
        if getattr(spec, key) is not None and not callable(getattr(spec, key)):
            raise SpecError(f"'{key}' must be callable")
    if spec.optimizer is not None and not (callable(spec.optimizer) or isinstance(spec.optimizer, torch.optim.Optimizer)):
        raise SpecError("'optimizer' must be a callable taking parameters (e.g. lambda p: torch.optim.Adam(p, lr=1e-3))")
    if spec.metric is not None:
        _check_metric(spec.metric)
    if spec.gradcheck is not None:
        if not isinstance(spec.gradcheck, dict):
            raise SpecError("'gradcheck' must be a dict: name -> (function, example_inputs_tuple)")
        for name, entry in spec.gradcheck.items():
            if not (isinstance(entry, (tuple, list)) and len(entry) == 2 and callable(entry[0])):
                raise SpecError(f"gradcheck entry {name!r} must be (function, example_inputs_tuple)")


def _check_metric(metric: Any) -> None:
    pair = isinstance(metric, (tuple, list)) and len(metric) == 2
    fn, perfect = metric if pair else (metric, 1.0)
    number = isinstance(perfect, (int, float)) and not isinstance(perfect, bool) and perfect == perfect
    if not callable(fn) or not number:
        raise SpecError("'metric' must be callable as metric(logits, targets) -> number (best value 1.0 or 100), "
                        "or a pair (metric, perfect_value) such as (error_rate, 0.0) when its best value is another")


def _check_batch(key: str, batch: Any) -> None:
    if not (isinstance(batch, dict) or (isinstance(batch, (tuple, list)) and len(batch) == 2)):
        raise SpecError(f"'{key}' must be a pair (inputs, targets) or a dict of model inputs (a Hugging Face "
                        f"collator's batch, labels under 'labels'), got {type(batch).__name__}")
    from .tensors import tensors_in

    if not list(tensors_in(split_batch(batch)[0])):
        raise SpecError(f"'{key}' inputs hold no tensor: pass a tensor, a tuple of tensors or a dict of tensors")


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
