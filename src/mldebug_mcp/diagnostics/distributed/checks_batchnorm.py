"""ranks_batchnorm_stats: BatchNorm normalises with per-rank or with global batch statistics, and what it costs.

Per-rank BatchNorm (the default: nn.BatchNorm* under DDP) normalises each rank's batch by its own mean and
variance. That is often deliberate (Goyal et al. kept 32 images per GPU) and costs nothing at large
per-rank batches; at a few samples per rank the statistics are noisy, training is regularised in a way
that changes with the number of GPUs, and the running estimates used at evaluation follow the small
batches. SyncBatchNorm computes the statistics over the global batch (it needs CUDA or XPU tensors in
torch 2.13). The running estimates: DDP (broadcast_buffers=True, its default) copies rank 0's to every
rank before each forward, so evaluation uses statistics of rank 0's batches only; without that, each rank
keeps its own and the replicas evaluate differently.
"""

from __future__ import annotations

from typing import Any

from ..checks.base import WARN, Check, listed, rounded
from .fingerprint import TOLERANCE, fingerprints, spread_across_ranks

CHECK = Check("ranks_batchnorm_stats", "BatchNorm statistics: per rank or synchronised, and over how many samples",
              ("pytorch-docs/batchnorm-running-estimates",))
SMALL_BATCH = 16  # per-rank samples below which per-rank statistics are noisy (Wu and He 2018, GroupNorm)


def measure(model: Any, inputs: Any) -> dict[str, Any]:
    """This rank's normalisation layers, its batch size and its running estimates (after the step)."""
    import torch
    from torch.nn.modules.batchnorm import _BatchNorm
    from torch.nn.parallel import DistributedDataParallel

    from ..checks.tensors import tensors_in

    layers = [(n, m) for n, m in model.named_modules() if isinstance(m, _BatchNorm)]
    synced = [n for n, m in layers if isinstance(m, torch.nn.SyncBatchNorm)]
    first = next((t for _, t in tensors_in(inputs) if t.dim() > 0), None)
    wrappers = [m for m in model.modules() if isinstance(m, DistributedDataParallel)]
    running = [(f"{n}.running_mean", m.running_mean) for n, m in layers if m.running_mean is not None]
    return {"layers": [n for n, _ in layers], "synced": synced, "batch": int(first.shape[0]) if first is not None else None,
            "broadcast_buffers": any(w.broadcast_buffers for w in wrappers), "running": fingerprints(running)}


def judge(ranks: list[dict[str, Any]]) -> Any:
    bn = [r["batchnorm"] for r in ranks]
    layers, synced = bn[0]["layers"], bn[0]["synced"]
    if not layers:
        return CHECK.skip("the model has no BatchNorm layer")
    per_rank = [n for n in layers if n not in synced]
    sizes = [b["batch"] for b in bn]
    smallest = min((s for s in sizes if s is not None), default=None)
    spread = spread_across_ranks([b["running"] for b in bn])
    drifted = [n for n, d in spread.items() if d > TOLERANCE]
    broadcast = bn[0]["broadcast_buffers"]
    problems: list[tuple[str, str]] = []
    if per_rank and smallest is not None and smallest < SMALL_BATCH:
        problems.append((WARN, (f"{len(per_rank)} BatchNorm layer(s) ({listed(per_rank, 3)}) normalise over each "
                               f"rank's own {smallest} samples, not the global batch of {sum(s or 0 for s in sizes)}")))
    if per_rank and drifted and not broadcast:
        problems.append((WARN, (f"the running estimates of {len(drifted)} layer(s) differ across ranks after one "
                               "step and nothing broadcasts them: each replica evaluates with its own")))
    measured = {"batchnorm_layers": len(layers), "sync_batchnorm_layers": len(synced), "samples_per_rank": sizes,
                "ddp_broadcasts_buffers": broadcast, "running_estimates_differ": len(drifted),
                "max_relative_difference_running_mean": rounded(max(spread.values(), default=0.0))}
    expected = {"samples_per_rank": f">= {SMALL_BATCH} for per-rank statistics, or SyncBatchNorm"}
    if not per_rank:
        healthy = f"all {len(layers)} BatchNorm layers are SyncBatchNorm: statistics over the global batch"
    else:
        healthy = (f"{len(per_rank)} BatchNorm layer(s) use per-rank statistics over {smallest} samples per rank "
                   "(not SyncBatchNorm): enough for stable estimates")
    result = CHECK.verdict(problems, healthy, measured=measured, expected=expected,
                           meaning=_meaning(per_rank, problems, smallest),
                           next_test=_next_test(problems))
    if per_rank and broadcast:
        result.details.append("DDP broadcasts rank 0's buffers before every forward: the running estimates used "
                              "at evaluation come from rank 0's batches only")
    return result


def _meaning(per_rank: list[str], problems: list[tuple[str, str]], smallest: int | None) -> str:
    if problems and smallest is not None and smallest < SMALL_BATCH:
        return (f"With {smallest} samples per rank the batch mean and variance are noisy estimates: normalisation "
                "changes from step to step, its regularising noise depends on the number of GPUs rather than on "
                "the global batch, the running estimates used at evaluation are biased towards that noise, and a "
                "model that trained well on one GPU with a larger batch can lose accuracy.")
    if problems:
        return ("The replicas keep different running estimates, so the same weights evaluate differently on each "
                "rank, and a checkpoint saved on rank 0 keeps rank 0's estimates.")
    if per_rank:
        return "Per-rank statistics over a batch this large are close to the global ones; a deliberate, cheap choice."
    return "SyncBatchNorm normalises over the global batch: the model trains as on one device with that batch."


def _next_test(problems: list[tuple[str, str]]) -> str:
    if problems:
        return ("On GPUs convert with model = nn.SyncBatchNorm.convert_sync_batchnorm(model) before wrapping in DDP; "
                "on CPU (gloo, where SyncBatchNorm cannot run) use GroupNorm or a larger per-rank batch; rerun "
                "with --checks ranks_batchnorm_stats.")
    return "Nothing to do; rerun if the per-rank batch shrinks (more GPUs for the same global batch)."
