"""Check 6: a step moves every trainable tensor, leaves frozen ones alone, and uses fresh gradients."""

from __future__ import annotations

import types
from typing import Any

from .base import FAIL, WARN, Check, listed
from .cancelling import HARMLESS, LATE, cancelled_biases, zero_only_at_start
from .session import Session

CHECK = Check("parameter_updates", "Parameters change after a step", (
    "slavv/verify-input-then-overfit-small", "karpathy-recipe/fails-silently"))

SENTINEL = 1.0  # planted in .grad before the user's step: a step that keeps it never zeroed the gradients


def run(s: Session) -> Any:
    s.seeded()
    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    s.step(model, s.batch, optimizer)
    stuck, moved_frozen, copied = [], [], []
    for name, p in model.named_parameters():
        changed = not bool((p.detach() == before[name]).all())
        if p.requires_grad and not changed:
            stuck.append(name)
        if not p.requires_grad and changed:
            # no .grad: the optimizer skipped it, so the user's own step moved it (BYOL's or MoCo's EMA target)
            (copied if p.grad is None and s.spec.train_step is not None else moved_frozen).append(name)
    harmless = [n for n in stuck if n in cancelled_biases(s)] if stuck else []
    late = sorted(zero_only_at_start(s, set(stuck) - set(harmless))) if stuck else []
    stuck = [n for n in stuck if n not in harmless and n not in late]
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    # Freezing is deliberate where the spec's own optimizer leaves the tensors out (a filter on
    # requires_grad); one that is handed them may have frozen them by mistake (diagnose's default
    # optimizer takes every tensor, so it tells nothing).
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    handed = [n for n, p in model.named_parameters() if not p.requires_grad and id(p) in held and n not in copied]
    problems: list[tuple[str, str]] = []
    if stuck:
        problems.append((FAIL, f"{len(stuck)} trainable tensors did not change after a step: {listed(stuck, 4)}"))
    if moved_frozen:
        problems.append((FAIL, f"{len(moved_frozen)} frozen tensors changed: {listed(moved_frozen, 4)} "
                               "(a stale .grad moved by the optimizer, or an in-place edit in forward)"))
    elif handed and s.spec.optimizer is not None:
        problems.append((WARN, f"{len(handed)} frozen tensors (requires_grad=False) are handed to the optimizer and "
                               f"never train: {listed(handed, 4)}; make sure that is intended (an optimizer over the "
                               f"trainable tensors only says it is)"))
    measured: dict[str, Any] = {"trainable_unchanged": len(stuck), "frozen_changed": len(moved_frozen),
                                "frozen": len(frozen), "frozen_moved_by_train_step": len(copied),
                                "cancelled_biases": len(harmless)}
    if s.spec.train_step is not None:
        problems += _zero_grad_probe(s, measured)
    result = CHECK.verdict(
        problems, "one step changed every trainable tensor and no frozen one", measured=measured,
        expected={"trainable_unchanged": 0, "frozen_changed": 0},
        meaning="An unchanged trainable tensor is never learnt; a step that reuses old gradients (no zero_grad) "
                "or sees zeroed ones (zero_grad between backward and step) trains on the wrong signal.",
        next_test="Check the optimizer's param groups and learning rates, and the order zero_grad, backward, step.")
    # Freezing is a deliberate act (a teacher, a fine-tuned backbone, a fixed embedding): said, not warned.
    if frozen:
        result.details.append(f"info: {len(frozen)} tensors are frozen (requires_grad=False): {listed(frozen, 4)}")
    if copied:
        result.details.append(f"info: the train_step itself moved {len(copied)} frozen tensors without gradients "
                              f"(an EMA or momentum copy): {listed(copied, 4)}")
    if harmless:
        result.details.append(f"info: {HARMLESS}: {listed(harmless, 4)}")
    if late:
        result.details.append(f"info: unchanged by the first step only, {LATE}: {listed(late, 4)}")
    return result


def _zero_grad_probe(s: Session, measured: dict) -> list[tuple[str, str]]:
    """Run the user's train_step twice from the same state, with .grad preset to 0 and to a sentinel; a
    sentinel that survives counts only when the step also leaves its own gradients behind."""
    import torch

    seen = [_grads_at_step(s, preset) for preset in (0.0, SENTINEL)]
    if seen[0] is None:
        return [(WARN, "train_step never called optimizer.step() on the optimizer it was given, "
                       "so its gradient handling could not be probed")]
    clean, planted = seen
    names = [n for n in clean if clean[n] is not None]
    if not names or all(not bool(clean[n].any()) for n in names):
        measured["zero_grad_probe"] = "zeroed"
        return [(FAIL, "optimizer.step() saw no gradients: zero_grad runs between backward and step")]
    # The planted value reaches step() when nothing zeroes the gradients first: exactly added, or
    # rescaled with the rest when the step clips the gradient norm.
    kept = [n for n in names if planted[n] is not None and not torch.allclose(planted[n], clean[n], rtol=1e-4, atol=1e-6)]
    if len(kept) == len(names) and _leaves_gradients(s):
        measured["zero_grad_probe"] = "accumulating"
        return [(FAIL, "gradients from before the step survive into it: train_step never calls zero_grad, "
                       "so every step uses the sum of all past gradients")]
    measured["zero_grad_probe"] = "fresh"
    return []


def _grads_at_step(s: Session, preset: float) -> dict[str, Any] | None:
    import torch

    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model)
    for p in model.parameters():
        if p.requires_grad:
            p.grad = torch.full_like(p, preset)
    captured: dict[str, Any] = {}

    def capture(_optimizer: Any, closure: Any = None, *_: Any, **__: Any) -> Any:  # replaces step: records its input
        loss = None
        if callable(closure):  # L-BFGS style: step(closure) computes the gradients itself
            with torch.enable_grad():
                loss = closure()
        captured.update({n: None if p.grad is None else p.grad.detach().clone() for n, p in model.named_parameters()})
        return loss

    # bound, as step is: a scheduler the step builds wraps optimizer.step.__func__
    optimizer.step = types.MethodType(capture, optimizer)
    with torch.random.fork_rng(devices=[]):
        s.seeded(1)
        s.user_step(model, s.batch, optimizer)
    return captured or None


def _leaves_gradients(s: Session) -> bool:
    """After one real step from fresh gradients, some .grad is non-zero: nothing zeroes them at the end
    of the step either (backward, step, zero_grad is as fresh as zero_grad, backward, step)."""
    import torch

    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model)
    with torch.random.fork_rng(devices=[]):
        s.seeded(1)
        s.user_step(model, s.batch, optimizer)
    return any(p.grad is not None and bool(p.grad.any()) for p in model.parameters())
