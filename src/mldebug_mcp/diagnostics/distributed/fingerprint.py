"""Tensors compared across ranks by fingerprint: a few float64 numbers per tensor instead of the tensor.

A fingerprint is (numel, sum, norm, a weighted sum with fixed cosine weights): equal tensors give equal
fingerprints, and tensors that differ give different ones (short of a contrived coincidence), so ranks
can compare millions of values by exchanging four numbers per tensor.
"""

from __future__ import annotations

import math
from typing import Any

TOLERANCE = 1e-6  # relative: all-reduced tensors are bitwise equal; independent ones differ at order 1
Fingerprint = tuple[float, float, float, float]


def fingerprint(tensor: Any) -> Fingerprint:
    import torch

    x = tensor.detach().reshape(-1).to(device="cpu", dtype=torch.float64)
    weights = torch.cos(torch.arange(x.numel(), dtype=torch.float64) * 0.7548776662466927)
    return (float(x.numel()), float(x.sum()), float(x.norm()), float((x * weights).sum()))


def fingerprints(named: Any) -> dict[str, Fingerprint | None]:
    """name -> fingerprint, or None for a missing tensor (a parameter without a gradient)."""
    return {name: None if tensor is None else fingerprint(tensor) for name, tensor in named}


def sharded(tensor: Any) -> bool:
    """A tensor of which each rank holds a different part: FSDP's flat parameter (and its gradient), or a
    DTensor (fully_shard's parameters), compared by their full values only through a collective."""
    if tensor is None:
        return False
    return bool(getattr(tensor, "_is_flat_param", False)) or callable(getattr(tensor, "to_local", None))


def relative_difference(a: Fingerprint, b: Fingerprint) -> float:
    """How far two fingerprints are apart, relative to the larger tensor's norm (0 when equal)."""
    if a[0] != b[0]:
        return math.inf
    norm = max(a[2], b[2])
    if norm == 0.0:
        return 0.0 if a == b else math.inf
    # all-reduced copies are bitwise equal: any difference counts, measured against the tensor's norm
    return max(abs(a[1] - b[1]), abs(a[2] - b[2]), abs(a[3] - b[3])) / norm


def spread_across_ranks(per_rank: list[dict[str, Fingerprint | None]]) -> dict[str, float]:
    """name -> the largest difference between rank 0 and any other rank, for tensors present on every
    rank; names missing on some ranks only are left to `present_on_some`."""
    names = [n for n in per_rank[0] if all(r.get(n) is not None for r in per_rank)]
    return {n: max((relative_difference(per_rank[0][n], r[n]) for r in per_rank[1:]), default=0.0) for n in names}


def present_on_some(per_rank: list[dict[str, Fingerprint | None]]) -> dict[str, list[int]]:
    """name -> the ranks that have the tensor, for tensors some ranks have and others lack."""
    names = dict.fromkeys(n for r in per_rank for n in r)
    have = {n: [i for i, r in enumerate(per_rank) if r.get(n) is not None] for n in names}
    return {n: ranks for n, ranks in have.items() if 0 < len(ranks) < len(per_rank)}
