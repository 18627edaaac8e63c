"""What running the checks on another device than the one the spec was built on needs.

A user builds the spec on CPU and asks for `--device cuda`: diagnose moves the model and the batch,
and these helpers cover what that move leaves behind (a loss module holding class weights, tensors a
train_step makes without a device) and what only a GPU does (a device-side assert, which leaves the
process's CUDA context unusable for every later call, where CPU raises a readable error).
"""

from __future__ import annotations

import copy
import functools
import itertools
from typing import Any

from .tensors import tensors_in

_MISMATCH = ("expected all tensors to be on the same device", "found at least two devices",
             "different from other tensors on")


def loss_on(loss_fn: Any, device: Any) -> Any:
    """The loss with its own tensors on `device`: a copy of a loss module (CrossEntropyLoss(weight=...),
    a module with a buffer) moved there, or a partial with its tensor arguments moved; the user's object
    is left as it was. Other callables pass unchanged (a closure's tensors cannot be reached)."""
    import torch

    if isinstance(loss_fn, functools.partial):
        def move(v: Any) -> Any:
            return v.to(device) if isinstance(v, torch.Tensor) else v

        return functools.partial(loss_on(loss_fn.func, device), *map(move, loss_fn.args),
                                 **{k: move(v) for k, v in loss_fn.keywords.items()})
    if not isinstance(loss_fn, torch.nn.Module):
        return loss_fn
    held = list(itertools.chain(loss_fn.parameters(), loss_fn.buffers()))
    if all(t.device == device for t in held):
        return loss_fn
    try:
        moved = copy.deepcopy(loss_fn)
    except Exception:  # noqa: BLE001 - a module that refuses deepcopy runs as given; a mismatch is then reported
        return loss_fn
    return moved.to(device)


class NonFiniteOutput(RuntimeError):
    """The model's output held NaN/Inf and was stopped before any loss saw it (see refuse_nonfinite)."""


def all_finite(value: Any) -> bool:
    """Whether every floating-point tensor inside a (nested) model output is finite."""
    return all(bool(t.isfinite().all()) for _, t in tensors_in(value) if t.is_floating_point())


def refuse_nonfinite(_module: Any, _inputs: Any, output: Any) -> None:
    """Forward hook for runs off the CPU: a NaN output would reach the user's loss, where
    binary_cross_entropy (and others) fire a device-side assert that ends every later check. Raising
    here ends just this run, as the readable error CPU raises in the loss would."""
    if not all_finite(output):
        raise NonFiniteOutput("the model's output holds NaN/Inf (stopped before the loss: on a GPU a loss fed "
                              "NaN can fire a device-side assert)")


def synchronize(device: Any) -> None:
    """Make a GPU's pending errors (an asynchronous device-side assert) surface here, not in a later call."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def is_device_mismatch(message: str) -> bool:
    lowered = message.lower()
    return any(marker in lowered for marker in _MISMATCH)


def mismatch_hint(where: str, device: Any) -> str:
    return (f"diagnose moved the model and the batch to {device}, but a tensor that {where} makes or holds stays "
            f"on another device: create it on the input's device (torch.full(..., device=x.device), or register "
            f"it as a buffer of the model), or run diagnose with --device set to where the spec was built")


def is_device_assert(message: str) -> bool:
    return "device-side assert" in message.lower()


DEVICE_ASSERT_HELP = (
    "a CUDA device-side assert fired here; the GPU gives no readable message and the process's CUDA context "
    "stays unusable, so the checks after this one were not run. Run diagnose with --device cpu, where the same "
    "operation raises a readable error: most often binary_cross_entropy given values outside [0, 1] or NaN (use "
    "BCEWithLogitsLoss on logits), or an index (class id, token id, embedding row) out of range")
