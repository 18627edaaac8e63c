"""ranks_clip_norm_agree: gradient-norm clipping measures the same global norm on every rank.

Clipping belongs after the gradients are averaged: then every rank computes one norm of one gradient and
scales it alike. Clipped before a hand-rolled all-reduce, each rank scales its own gradient by its own
norm and the average of those is not the clipped average; torch.nn.utils.clip_grad_norm_ called on FSDP's
sharded parameters measures this rank's shard only (FSDP's own model.clip_grad_norm_ all-reduces it).
Recorded during the step: torch.nn.utils.clip_grad_norm_ computes its norm with a module-level helper,
which is wrapped here (however the user imported clip_grad_norm_), as is FSDP's clip_grad_norm_.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..checks.base import FAIL, Check, rounded

CHECK = Check("ranks_clip_norm_agree", "Gradient clipping sees the same global norm on every rank",
              ("pytorch-distributed/fsdp-clip-grad-norm", "accelerate-docs/clip-through-accelerator"))
TOLERANCE = 1e-6  # relative: norms of identical averaged gradients are bitwise equal


@contextmanager
def recording() -> Iterator[list[tuple[str, Any]]]:
    """The (function, total norm) of every gradient-norm clip during the block."""
    from torch.nn import utils
    from torch.nn.utils import clip_grad

    fsdp = sys.modules.get("torch.distributed.fsdp")  # loaded by the user's code when it uses FSDP (1 s to import)
    fsdp_class = getattr(fsdp, "FullyShardedDataParallel", None)

    norms: list[tuple[str, Any]] = []
    # torch >= 2.6: clip_grad_norm_ gets its norm from _get_total_norm, looked up in its module at each call;
    # before, clip_grad_norm_ itself is wrapped where the user usually reaches it
    inner = "_get_total_norm" if hasattr(clip_grad, "_get_total_norm") else "clip_grad_norm_"
    patched = [(clip_grad, inner)] + ([(utils, "clip_grad_norm_")] if inner == "clip_grad_norm_" else [])
    if fsdp_class is not None:
        patched.append((fsdp_class, "clip_grad_norm_"))
    originals = [getattr(owner, name) for owner, name in patched]

    def recorder(original: Any, how: str) -> Any:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            norm = original(*args, **kwargs)
            norms.append((how, norm))
            return norm
        return recorded

    for (owner, name), original in zip(patched, originals, strict=True):
        how = "FullyShardedDataParallel.clip_grad_norm_" if owner is fsdp_class else "torch.nn.utils.clip_grad_norm_"
        setattr(owner, name, recorder(original, how))
    try:
        yield norms
    finally:
        for (owner, name), original in zip(patched, originals, strict=True):
            setattr(owner, name, original)


def as_numbers(norms: list[tuple[str, Any]]) -> list[tuple[str, float]]:
    """The recorded norms as floats (a DTensor's full value: every rank converts the same calls)."""
    return [(how, float(norm)) for how, norm in norms]


def judge(ranks: list[dict[str, Any]]) -> Any:
    clips = [r["clip_norms"] for r in ranks]
    if not any(clips):
        return CHECK.skip("the step did not clip gradients (no clip_grad_norm_ call was seen)")
    counts = [len(c) for c in clips]
    norms = [[n for _, n in c] for c in clips]
    how = next(c for c in clips if c)[0][0]  # the first rank that clipped
    first = [n[0] if n else math.nan for n in norms]
    problems: list[tuple[str, str]] = []
    if len(set(counts)) > 1:
        problems.append((FAIL, f"the ranks clipped a different number of times in one step: {counts}"))
    spread = max(_relative(a, b) for ns in zip(*norms, strict=False) for a in ns for b in ns) if min(counts) else 0.0
    if spread > TOLERANCE:
        shown = ", ".join(f"rank {i}: {rounded(v)}" for i, v in enumerate(first))
        problems.append((FAIL, (f"{how} measured a different gradient norm on each rank ({shown}): each rank "
                               "clipped by its own norm, not the global one")))
    sharded = any(r["sharded"] for r in ranks)
    measured = {"clip_calls_per_rank": counts, "total_norm_per_rank": [rounded(v) for v in first],
                "max_relative_difference": rounded(spread), "clipped_with": how}
    expected = {"total_norm_per_rank": "one value on every rank", "max_relative_difference": f"<= {TOLERANCE:g}"}
    return CHECK.verdict(problems, f"{how} measured the same gradient norm ({rounded(first[0])}) on all "
                                   f"{len(ranks)} ranks", measured=measured, expected=expected,
                         meaning=_meaning(problems, sharded, how), next_test=_next_test(problems, sharded))


def _relative(a: float, b: float) -> float:
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def _meaning(problems: list[tuple[str, str]], sharded: bool, how: str) -> str:
    if problems and sharded and how.startswith("torch.nn"):
        return ("torch.nn.utils.clip_grad_norm_ over FSDP's flat parameters sees only this rank's shard of each "
                "gradient: every rank scales its shard by a different, too small norm, so the clipped gradient is "
                "neither the global one nor the same direction.")
    if problems:
        return ("The gradient was clipped before it was averaged (or by a per-rank norm): each rank scales its own "
                "gradient by its own factor, so the average applied is not the clipped average, the threshold "
                "acts on a norm that shrinks or grows with the per-rank batch, and with FSDP the shards are "
                "scaled inconsistently.")
    return "Every rank clips the same averaged gradient by the same factor, as one process would."


def _next_test(problems: list[tuple[str, str]], sharded: bool) -> str:
    if problems and sharded:
        return ("Clip with the FSDP model's own model.clip_grad_norm_(max_norm), which all-reduces the shards' norms; "
                "rerun with --checks ranks_clip_norm_agree.")
    if problems:
        return ("Clip after the gradients are averaged: after backward() under DDP, after your all-reduce in a "
                "hand-rolled loop (and after scaler.unscale_ with a GradScaler); rerun with --checks "
                "ranks_clip_norm_agree.")
    return "Nothing to do; with FSDP use model.clip_grad_norm_, which this check also reads."
