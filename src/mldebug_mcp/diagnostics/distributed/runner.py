"""The distributed checks on one rank: measure here, gather everything to rank 0, judge there.

Every rank takes part in the same collectives of ours: an all-gather of its measurements after the user's
step, and, when ranks_nonfinite_agree runs, a second one after the step with an injected inf (which runs
only once the first gather showed every rank through the first step in step). The ranks stay in lockstep
however the checks fare; only rank 0 judges and reports.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from typing import Any

from ..checks.result import ERROR, CheckResult, check_frames, user_traceback, worst
from . import (
    checks_batchnorm,
    checks_clipping,
    checks_data,
    checks_gradients,
    checks_metric,
    checks_nonfinite,
    checks_parameters,
    checks_random,
    probe,
)
from .rank_spec import RankSpec

CHECKS = (checks_parameters, checks_gradients, checks_data, checks_random, checks_nonfinite, checks_clipping,
          checks_batchnorm, checks_metric)
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # checks/ and distributed/ alike
Progress = Callable[[int, int, str], None]


def run_rank(rank_spec: RankSpec, *, rank: int, world_size: int, backend: str, only: list[str] | None = None,
             progress: Progress | None = None) -> dict[str, Any] | None:
    """The report on rank 0, None on the other ranks."""
    import torch
    import torch.distributed as dist

    started = time.perf_counter()
    selected = [m for m in CHECKS if not only or m.CHECK.id in only]
    if progress is not None:
        progress(0, len(selected) + 1, "one training step on every rank")
    wanted = {m.CHECK.id for m in selected}
    local = probe.measure(rank_spec, rank, wanted)
    ranks: list[Any] = [None] * world_size
    dist.all_gather_object(ranks, local)
    if checks_nonfinite.CHECK.id in wanted:
        injected: list[Any] = [None] * world_size
        dist.all_gather_object(injected, probe.inject_nonfinite(rank_spec, rank, world_size))
        for measured, outcome in zip(ranks, injected, strict=True):
            measured["nonfinite"] = outcome
    if rank != 0:
        return None
    results = []
    for index, module in enumerate(selected, start=1):
        if progress is not None:
            progress(index, len(selected) + 1, module.CHECK.id)
        results.append(_judge(module, ranks))
    if progress is not None:
        progress(len(selected) + 1, len(selected) + 1, "done")
    model = rank_spec.spec.model
    return {
        "status": worst([r.status for r in results]),
        "checks": [r.to_json() for r in results],
        "environment": {"torch": torch.__version__, "python": platform.python_version(), "backend": backend,
                        "world_size": world_size, "device": str(_device(model)),
                        "rank_seconds": [r["seconds"] for r in ranks],
                        "rank_step_seconds": [r["step_seconds"] for r in ranks]},
        "setup": {"task": rank_spec.spec.task, "model": type(model).__name__,
                  "parameters": sum(p.numel() for p in model.parameters()),
                  "loss_per_rank": [r["loss"] for r in ranks]},
        "seconds": round(time.perf_counter() - started, 3),
    }


def _judge(module: Any, ranks: list[dict[str, Any]]) -> CheckResult:
    started = time.perf_counter()
    try:
        result = module.judge(ranks)
    except Exception as exc:  # noqa: BLE001 - the check broke: say so, never as a verdict on the model
        error = {**user_traceback(exc, _OWN_DIR), "check_frames": check_frames(exc, _OWN_DIR)}
        result = module.CHECK.result(
            ERROR, f"the check itself raised {error['type']}: {error['message']}", error=error,
            meaning="This check could not reach a verdict; the other checks' verdicts stand.",
            next_test="Please report it with the message and frames.")
    result.seconds = round(time.perf_counter() - started, 3)
    return result


def _device(model: Any) -> Any:
    first = next(model.parameters(), None)
    return first.device if first is not None else "cpu"

