"""ranks_parameters_agree: every rank holds the same weights at the start and after one step.

Data parallelism is N copies of one model: DistributedDataParallel broadcasts rank 0's weights when it
wraps a module and averages gradients after, so the copies stay equal. A tensor that differs names what
escaped that: weights outside the wrapper, a hand-rolled loop that never broadcast its start, or a step
that differs by rank.
"""

from __future__ import annotations

from typing import Any

from ..checks.base import FAIL, Check, listed, rounded
from .fingerprint import TOLERANCE, spread_across_ranks

CHECK = Check("ranks_parameters_agree", "Every rank holds the same weights, before and after a step",
              ("pytorch-distributed/debug-detail-checks",))


def judge(ranks: list[dict[str, Any]]) -> Any:
    if not ranks[0]["params_start"] and ranks[0].get("sharded"):
        return CHECK.skip(f"all {ranks[0]['sharded']} parameter tensors are sharded (FSDP): the ranks hold the "
                          "shards of one copy, not replicas, so there is nothing to drift apart (gathered, the full "
                          "tensors are the same on every rank by construction)")
    start = spread_across_ranks([r["params_start"] for r in ranks])
    after = spread_across_ranks([r["params_after"] for r in ranks])
    at_start = [n for n, d in start.items() if d > TOLERANCE]
    drifted = [n for n, d in after.items() if d > TOLERANCE and n not in at_start]
    total = len(start)
    problems = []
    if at_start:
        problems.append((FAIL, (f"{len(at_start)} of {total} parameter tensors differ across ranks before any "
                               f"step: {listed(at_start, 4)}")))
    if drifted:
        problems.append((FAIL, (f"{len(drifted)} of {total} parameter tensors are equal at the start but differ "
                               f"after one step: {listed(drifted, 4)}")))
    measured = {"tensors": total, "differ_at_start": len(at_start), "drift_after_step": len(drifted),
                "max_relative_difference_start": rounded(max(start.values(), default=0.0)),
                "max_relative_difference_after_step": rounded(max(after.values(), default=0.0))}
    expected = {"differ_at_start": 0, "drift_after_step": 0, "max_relative_difference": f"<= {TOLERANCE:g}"}
    result = CHECK.verdict(problems, f"all {total} parameter tensors are identical on the {len(ranks)} ranks, "
                                     "before and after one step",
                           measured=measured, expected=expected, meaning=_meaning(at_start, drifted),
                           next_test=_next_test(at_start, drifted))
    result.details.extend(f"differs at start: {n} (relative difference {rounded(start[n], 3)})" for n in at_start[:10])
    result.details.extend(f"drifts after one step: {n} (relative difference {rounded(after[n], 3)})"
                          for n in drifted[:10])
    return result


def _meaning(at_start: list[str], drifted: list[str]) -> str:
    if at_start:
        return ("The ranks start from different weights, so they train different models and average gradients "
                "that belong to none of them. DDP broadcasts rank 0's weights when it wraps a module: these "
                "tensors are outside any wrapper, or the loop averages gradients by hand and never broadcast "
                "the initial weights (each rank seeded its own initialisation).")
    if drifted:
        return ("The ranks start together but one step pulls them apart: their updates differ. The gradients of "
                "these tensors are not averaged (a module outside the DDP wrapper, a backward under no_sync), or "
                "the optimizer differs by rank (a rank-dependent learning rate, per-rank clipping of unaveraged "
                "gradients). See ranks_gradients_agree.")
    return "The N copies of the model are one model, as data parallelism requires."


def _next_test(at_start: list[str], drifted: list[str]) -> str:
    if at_start:
        return ("Wrap the whole model in DistributedDataParallel after building it (its constructor broadcasts rank "
                "0's weights), or broadcast each tensor from rank 0 (dist.broadcast(p.data, src=0)); then rerun "
                "with --checks ranks_parameters_agree.")
    return ("Run ranks_gradients_agree: if the same tensors' gradients differ, the update is unsynchronised; if "
            "not, compare the optimizer's settings on each rank.")
