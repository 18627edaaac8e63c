"""ranks_nonfinite_agree: an inf in one rank's gradient reaches every rank, and all ranks act on it alike.

A second step on the same batch, with one gradient of the last rank set to inf by a tensor hook (before
any all-reduce: DDP's runs after it). Averaged gradients carry the inf to every rank, so every rank skips
the step together (a GradScaler, or a check of the all-reduced gradient) or applies it together. A rank
that checks its own gradient before averaging (scaler.unscale_ before a hand-rolled all-reduce, a per-rank
isfinite test) decides alone: it skips while the others apply the inf it sent them, and the replicas split.
Run last: the injected step may leave the weights non-finite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..checks.base import FAIL, Check
from .fingerprint import fingerprints, sharded

CHECK = Check("ranks_nonfinite_agree", "A non-finite gradient on one rank is seen by every rank",
              ("bekman/detect-nan-inf-per-module", "pytorch-distributed/debug-detail-checks"))
SKIPPED, NON_FINITE, FINITE = "skipped the step", "applied a non-finite gradient", "applied a finite gradient"


def measure(model: Any, rank: int, world_size: int, step: Callable[[], Any]) -> dict[str, Any]:
    """Run `step` with an inf injected into the last rank's first trainable gradient; what this rank did."""
    import torch
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    named = [(n, p) for n, p in model.named_parameters()
             if p.requires_grad and p.is_floating_point() and not sharded(p)]
    target = next(iter(named), None)
    if target is None:
        return {"skipped": "no unsharded floating-point parameter to put an inf in"}
    injector, fired, steps = world_size - 1, [], []

    def inject(grad: Any) -> Any:
        fired.append(True)
        return torch.full_like(grad, float("inf"))

    def seen_by_optimizer(optimizer: Any, args: Any, kwargs: Any) -> None:
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        steps.append(all(bool(torch.isfinite(_local(g)).all()) for g in grads))

    before = fingerprints(named)
    handles = [register_optimizer_step_pre_hook(seen_by_optimizer)]
    if rank == injector:
        handles.append(target[1].register_hook(inject))
    raised, message = None, ""
    try:
        step()
    except Exception as exc:  # raising on the inf is one way to act on it
        from .rank import COLLECTIVE_SIGNS

        if any(sign in str(exc) for sign in COLLECTIVE_SIGNS):
            raise  # a collective that failed or timed out: the run's error, not a way of acting on the inf
        raised, message = type(exc).__name__, str(exc)[:300]  # compared by type: messages may name the rank
    finally:
        for handle in handles:
            handle.remove()
    changed = fingerprints(named) != before  # NaN fingerprints differ from anything, themselves included
    if raised:
        outcome = f"raised {raised}"
    elif not steps or not changed:
        outcome = SKIPPED
    else:
        outcome = FINITE if all(steps) else NON_FINITE
    return {"injected_on": injector, "parameter": target[0], "fired": bool(fired), "outcome": outcome,
            "message": message}


def _local(tensor: Any) -> Any:
    to_local = getattr(tensor, "to_local", None)  # a DTensor's shard
    return to_local() if callable(to_local) else tensor


def judge(ranks: list[dict[str, Any]]) -> Any:
    seen = [r["nonfinite"] for r in ranks]
    skipped = next((s["skipped"] for s in seen if "skipped" in s), None)
    if skipped:
        return CHECK.skip(skipped)
    injector = seen[0]["injected_on"]
    if not seen[injector]["fired"]:
        return CHECK.skip(f"the gradient of {seen[0]['parameter']} on rank {injector} never passed through its hook "
                          "(the step does not backpropagate into it), so no inf could be injected")
    outcomes = [s["outcome"] for s in seen]
    problems: list[tuple[str, str]] = []
    if len(set(outcomes)) > 1:
        told = "; ".join(f"rank {i} {o}" for i, o in enumerate(outcomes))
        problems.append((FAIL, (f"with an inf put in {seen[0]['parameter']}'s gradient on rank {injector}, the "
                               f"ranks acted differently: {told}")))
    measured = {"injected": f"inf in {seen[0]['parameter']}.grad on rank {injector}", "outcome_per_rank": outcomes}
    expected = {"outcome_per_rank": "one outcome on every rank (all skip, or all apply the averaged gradient)"}
    result = CHECK.verdict(problems, f"an inf in one rank's gradient reached all {len(ranks)} ranks, and every "
                                     f"rank {outcomes[0]}", measured=measured, expected=expected,
                           meaning=_meaning(problems, outcomes), next_test=_next_test(problems))
    result.details.extend(f"rank {i} raised: {s['message']}" for i, s in enumerate(seen) if s.get("message"))
    if not problems and outcomes[0] == NON_FINITE:
        result.details.append("every rank applied the inf: consistent, but one bad batch on one rank then corrupts "
                              "every replica; a GradScaler (or skipping when the all-reduced norm is not finite) "
                              "skips such steps on all ranks together")
    return result


def _meaning(problems: list[tuple[str, str]], outcomes: list[str]) -> str:
    if problems and SKIPPED in outcomes:
        return ("A rank decided about the inf from its own gradient, before averaging: it skipped its step while "
                "the others, whose check ran before the inf arrived in the all-reduce, applied it. Typically "
                "scaler.unscale_(optimizer) before a hand-rolled all-reduce: each rank's GradScaler saw only its "
                "own gradient. The replicas split (one unchanged, the others non-finite) and the scalers diverge.")
    if problems:
        return ("The ranks did not act alike on a non-finite gradient: the inf did not reach every rank (a "
                "gradient outside the all-reduce), or a rank-local check changed the step on some ranks only.")
    return "A non-finite gradient anywhere is a non-finite gradient everywhere, and the ranks act on it together."


def _next_test(problems: list[tuple[str, str]]) -> str:
    if problems:
        return ("All-reduce first, then check: under DDP call scaler.unscale_ after backward(); in a hand-rolled "
                "loop all-reduce the gradients before scaler.unscale_ (or all-reduce a found-inf flag with "
                "ReduceOp.MAX); rerun with --checks ranks_nonfinite_agree.")
    return "Nothing to do; rerun after changing the step's inf handling."
