"""ranks_gradients_agree: after backward, every rank holds the same (averaged) gradient.

DDP all-reduces gradients during backward, so after it every rank should hold the same values, and
the same set of parameters should have a gradient everywhere. A gradient that differs was never
averaged: its parameter sits outside the DDP wrapper, the backward ran under no_sync(), or the model
has no wrapper and the loop does not all-reduce by hand. A gradient present on some ranks only comes
from a data-dependent branch that some ranks skipped.
"""

from __future__ import annotations

from typing import Any

from ..checks.base import FAIL, Check, listed, rounded
from .fingerprint import TOLERANCE, present_on_some, spread_across_ranks

CHECK = Check("ranks_gradients_agree", "Every rank holds the same averaged gradients after backward",
              ("pytorch-distributed/debug-detail-checks", "pytorch-distributed/unused-parameters-must-be-declared"))


def judge(ranks: list[dict[str, Any]]) -> Any:
    grads = [r["grads"] for r in ranks]
    spread = spread_across_ranks(grads)
    partial = present_on_some(grads)
    if not spread and not partial and ranks[0].get("sharded"):
        return CHECK.skip(f"all {ranks[0]['sharded']} parameter tensors are sharded (FSDP): each rank holds the "
                          "reduced gradient of its own shard, so there is nothing to compare across ranks (see "
                          "ranks_clip_norm_agree for the norm over the shards)")
    if not spread and not partial:
        return CHECK.skip("no parameter had a gradient after the step (does train_step clear them after "
                          "optimizer.step()?)")
    differ = [n for n, d in spread.items() if d > TOLERANCE]
    outside, has_ddp = ranks[0]["outside_ddp"], ranks[0]["has_ddp"]
    problems = []
    if differ:
        problems.append((FAIL, (f"{len(differ)} of {len(spread)} gradients differ across ranks after backward: "
                               f"{listed(differ, 4)}")))
    if partial:
        problems.append((FAIL, (f"{len(partial)} parameter(s) have a gradient on some ranks only: "
                               f"{listed([f'{n} (ranks {ranks_})' for n, ranks_ in partial.items()], 3)}")))
    same_batch = all(r["batch"] == ranks[0]["batch"] for r in ranks[1:])
    measured = {"gradients": len(spread), "differ": len(differ), "on_some_ranks_only": len(partial),
                "max_relative_difference": rounded(max(spread.values(), default=0.0)),
                "outside_ddp": len(outside), "ddp_wrapper": has_ddp, "ranks_had_the_same_batch": same_batch}
    expected = {"differ": 0, "on_some_ranks_only": 0, "max_relative_difference": f"<= {TOLERANCE:g}"}
    result = CHECK.verdict(problems, f"all {len(spread)} gradients are identical on the {len(ranks)} ranks after "
                                     "backward", measured=measured, expected=expected,
                           meaning=_meaning(differ, partial, outside, has_ddp),
                           next_test=_next_test(differ, outside, has_ddp))
    # the norm of each gradient on each rank (the fingerprint's third number), drawn side by side by --plot
    result.series["grad_norm_by_rank"] = {f"rank {i}": {n: fp[2] for n, fp in g.items() if fp is not None}
                                          for i, g in enumerate(grads)}
    if same_batch:
        result.details.append("every rank trained on the same batch, so unaveraged gradients would agree anyway: "
                              "give each rank its own batch (rank-dependent data) for this check to see them")
    result.details.extend(f"differs: {n} ({'outside' if n in outside else 'inside'} the DDP wrapper, relative "
                          f"difference {rounded(spread[n], 3)})" for n in differ[:10])
    return result


def _meaning(differ: list[str], partial: dict[str, list[int]], outside: list[str], has_ddp: bool) -> str:
    if differ and set(differ) <= set(outside) and has_ddp:
        return ("These parameters sit outside the DistributedDataParallel wrapper: their gradients are never "
                "averaged, so each rank updates them from its own batch and the replicas drift apart.")
    if differ and not has_ddp:
        return ("The model has no DistributedDataParallel wrapper and the step does not average its gradients "
                "(dist.all_reduce and divide by world size): every rank trains its own model.")
    if differ:
        return ("Gradients inside the DDP wrapper differ: the backward ran under model.no_sync() (gradient "
                "accumulation that never syncs on the last micro-batch), or the step changed gradients after "
                "backward in a rank-dependent way.")
    if partial:
        return ("A data-dependent branch used these parameters on some ranks only; DDP then needs "
                "find_unused_parameters=True, and without it the reduction hangs or fails on the next step.")
    return "Every rank applies the same averaged gradient, so the replicas stay one model."


def _next_test(differ: list[str], outside: list[str], has_ddp: bool) -> str:
    if differ and set(differ) <= set(outside) and has_ddp:
        return ("Wrap the module that owns these parameters together with the rest (one DDP around the whole "
                "model, heads and losses with parameters included); rerun with --checks ranks_gradients_agree.")
    if differ and not has_ddp:
        return ("Wrap the model in DistributedDataParallel (if your script wraps it after building the spec, return "
                "the wrapped model, or give train_step with your own all-reduce), then rerun with --checks "
                "ranks_gradients_agree.")
    if differ:
        return ("Check that the last micro-batch's backward runs outside model.no_sync(), and that nothing edits "
                ".grad between backward() and step() by rank; rerun with --checks ranks_gradients_agree.")
    return ("Run two steps of your own loop with find_unused_parameters=False: DDP raises at the second step "
            "and names the parameters a rank left unused.")
