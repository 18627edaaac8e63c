"""Biases the loss cannot see: exactly zero gradient while their layer's weight learns.

A bias followed by BatchNorm (which subtracts the batch mean), or inside a network whose loss takes a
difference of two of its outputs (a WGAN critic's D(real) - D(fake), a Siamese distance), or whose loss
terms balance at the start (a hinge on real and fake batches of one size), gets a gradient of exactly
zero: harmless, and common in real code. A layer cut off from the loss, or with every unit dead, has a
zero gradient on its weight too, and stays a failure.
"""

from __future__ import annotations

from typing import Any


def cancelling(model: Any) -> set[str]:
    """After a backward: the biases with an all-zero gradient whose module's weight has a non-zero one."""
    modules = dict(model.named_modules())
    found = set()
    for name, p in model.named_parameters():
        owner_name, _, leaf = name.rpartition(".")
        if leaf != "bias" or not p.requires_grad or p.grad is None or bool(p.grad.any()):
            continue
        owner = modules.get(owner_name)
        # its siblings: the weight, or the tensor a parametrization (spectral or weight norm) computes it from
        siblings = [q for n, q in owner.named_parameters() if n != "bias"] if owner is not None else []
        if any(q.grad is not None and bool(q.grad.any()) and bool(q.grad.isfinite().all()) for q in siblings):
            found.add(name)
    return found


def cancelled_biases(s: Any) -> set[str]:
    """`cancelling` on a fresh copy after one backward of the spec's loss (kept for the run)."""
    if "cancelled_biases" not in s.memo:
        model = s.fresh_model(train=True)
        _backward(s, model)
        s.memo["cancelled_biases"] = cancelling(model)
    return s.memo["cancelled_biases"]


HARMLESS = ("the loss does not change with these biases (a BatchNorm after them, a difference of two outputs, "
            "or terms that balance): they never train, harmlessly")


def zero_only_at_start(s: Any, names: set[str]) -> set[str]:
    """Of `names`, the tensors with an all-zero gradient at initialisation and a non-zero one after one training
    step: a tensor they multiply starts at zero (word2vec's context embeddings, a zero-initialised residual
    branch), so they learn from the second step on. Measured once per run for every parameter."""
    if not names:
        return set()
    if "zero_only_at_start" not in s.memo:
        s.seeded()
        model = s.fresh_model(train=True)
        try:
            zero_at_start = {n for n, g in _gradients(s, model).items() if not bool(g.any())}
            s.step(model, s.batch, s.make_optimizer(model))
            later = _gradients(s, model)
            found = {n for n in zero_at_start if n in later and bool(later[n].any()) and bool(later[n].isfinite().all())}
        except Exception:  # noqa: BLE001 - a step that raises is another check's finding; nothing is cleared here
            found = set()
        s.memo["zero_only_at_start"] = found
    return s.memo["zero_only_at_start"] & names


def _backward(s: Any, model: Any) -> None:
    """One backward of the spec's loss on its batch from cleared gradients (the same dropout mask each time)."""
    model.zero_grad(set_to_none=True)
    s.seeded()
    s.loss(model, s.batch).backward()


def _gradients(s: Any, model: Any) -> dict[str, Any]:
    """The gradient of the spec's loss for every parameter that gets one."""
    _backward(s, model)
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return grads


LATE = "zero gradient only before the first update (a tensor they multiply starts at zero); they learn from then on"
