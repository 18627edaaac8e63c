"""Runtime diagnostics for a PyTorch training setup: 16 checks, each a verdict with evidence.

This package is executed inside the user's interpreter (see ../launch.py), so it imports
only the standard library and torch, and only through relative imports.
"""

from __future__ import annotations

import os
import platform
import time
from typing import Any, Callable

from . import (
    activations,
    batch_independence,
    batch_sanity,
    causality,
    first_nonfinite,
    gradcheck,
    gradient_flow,
    input_dependence,
    leakage,
    loss_at_init,
    metric_sanity,
    odd_shapes,
    overfit,
    parameter_updates,
    train_eval_modes,
    update_ratio,
)
from .device import DEVICE_ASSERT_HELP, is_device_assert, synchronize
from .preflight import forward_failure, skipped_after
from .result import ERROR, FAIL, CheckResult, check_frames, user_traceback, worst
from .session import Session
from .spec import DebugSpec, SpecError, as_spec

# Cheapest and most basic first: a later check is hard to read while an earlier one fails.
CHECKS = (batch_sanity, loss_at_init, input_dependence, gradient_flow, overfit, parameter_updates,
          update_ratio, activations, first_nonfinite, batch_independence, causality, odd_shapes,
          train_eval_modes, leakage, gradcheck, metric_sanity)
CHECK_IDS = tuple(module.CHECK.id for module in CHECKS)
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))

Progress = Callable[[int, int, str], None]


def run_checks(spec: Any, *, seed: int = 0, steps: int = 200, device: str | None = None,
               only: list[str] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Run the checks on a DebugSpec or dict; return the report as JSON-ready data."""
    import torch

    unknown = sorted(set(only or ()) - set(CHECK_IDS))
    if unknown:
        raise SpecError(f"unknown check(s) {unknown}; choose from {', '.join(CHECK_IDS)}")
    spec = as_spec(spec)
    started = time.perf_counter()
    session = Session(spec, seed=seed, steps=steps, device=device)
    selected = [m for m in CHECKS if not only or m.CHECK.id in only]
    results: list[CheckResult] = []
    try:
        # batch_sanity reads the batch itself, which is worth seeing when the model cannot take it; the
        # first other check carries a forward that raises, once, rather than each check its own copy.
        carrier = next((m for m in selected if m is not batch_sanity), None)
        failure = forward_failure(session, (carrier or batch_sanity).CHECK) if selected else None
        for index, module in enumerate(selected):
            if progress is not None:
                progress(index, len(selected), module.CHECK.id)
            dead = session.context_lost  # the check whose device-side assert left the CUDA context unusable
            if dead is not None:
                carries = failure is not None and module is (carrier or batch_sanity)
                results.append(failure if carries else module.CHECK.skip(
                    f"not run: the device-side assert in {dead} left this process's GPU context unusable (see "
                    f"{dead}); rerun with --device cpu"))
                continue
            if module is batch_sanity:
                result = _run_one(module, session)
                # batch_sanity alone carries the failing forward, unless the batch already explains it
                results.append(failure if carrier is None and failure is not None and result.status != FAIL else result)
            elif failure is None:
                results.append(_run_one(module, session))
            else:
                results.append(failure if module is carrier else skipped_after(module.CHECK, failure.id))
    finally:
        session.restore()
    _charge_shared_runs(results, session)
    if progress is not None:
        progress(len(selected), len(selected), "done")
    return {
        "status": worst([r.status for r in results]),
        "checks": [r.to_json() for r in results],
        "environment": {"torch": torch.__version__, "python": platform.python_version(),
                        "device": str(session.device), "seed": seed, "steps": steps},
        "setup": {"task": spec.task, "model": type(spec.model).__name__,
                  "parameters": sum(p.numel() for p in spec.model.parameters())},
        "seconds": round(time.perf_counter() - started, 3),
    }


def _charge_shared_runs(results: list[CheckResult], session: Session) -> None:
    """The real-batch runs (the spec's rate and the searched ones) are paid by whichever check needs
    them first; their time is shown under overfit_one_batch, whose runs they are."""
    target = next((r for r in results if r.id == overfit.CHECK.id and r.status != "skipped"), None)
    charged: dict[str, float] = session.memo.get("charged", {})  # check id -> shared seconds it paid
    if target is None or not charged:
        return
    for result in results:
        if result is not target and result.id in charged:
            result.seconds = round(max(0.0, result.seconds - charged[result.id]), 3)
    target.seconds = round(target.seconds + sum(v for k, v in charged.items() if k != target.id), 3)


def _run_one(module: Any, session: Session) -> CheckResult:
    started = time.perf_counter()
    before = session.run_seconds.get("real", 0.0)
    try:
        result = module.run(session)
        synchronize(session.device)  # an asynchronous device-side assert is this check's, not the next one's
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # the check broke: say so, never as a verdict on the model
        error = {**user_traceback(exc, _OWN_DIR), "check_frames": check_frames(exc, _OWN_DIR)}
        told = error["message"]
        if is_device_assert(told):
            session.context_lost, told = module.CHECK.id, DEVICE_ASSERT_HELP
        result = module.CHECK.result(
            ERROR, f"the check itself raised {error['type']}: {told}", error=error,
            meaning="This check could not reach a verdict: the exception says nothing about whether the model is "
                    "healthy. The other checks' verdicts stand.",
            next_test="Read the frames: in your code, the check's conditions (its description) trip it; in the "
                      "check's code only, please report it with the message and frames.")
    result.seconds = round(time.perf_counter() - started, 3)
    spent = session.run_seconds.get("real", 0.0) - before
    if spent > 0:  # the shared real-batch runs this check triggered (see _charge_shared_runs)
        session.memo.setdefault("charged", {})[module.CHECK.id] = spent
    return result


__all__ = ["CHECKS", "CHECK_IDS", "DebugSpec", "SpecError", "as_spec", "run_checks"]
