"""The spec of one rank: the usual debug spec plus what only a distributed run has.

The spec function may take `rank` and `world_size` (or read RANK and WORLD_SIZE from the environment,
which torchrun sets). Besides the usual keys it may return:
  loader     the rank's training DataLoader (its sampler is read, no sample is loaded);
  set_epoch  callable(epoch): what the training loop does at the start of each epoch, typically
             `lambda epoch: loader.sampler.set_epoch(epoch)`.
`batch` may be left out when a loader is given: its first batch is used. The usual `metric(logits,
targets)` is run on every rank's batch, as the script runs it before logging (ranks_metric_reduced). The
model may already be wrapped in DistributedDataParallel or FSDP (both run on gloo CPU in torch 2.13); the
process group is initialised before the function is called.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..checks.spec import DebugSpec, SpecError, as_spec

DISTRIBUTED_KEYS = ("loader", "set_epoch")


@dataclass
class RankSpec:
    spec: DebugSpec
    loader: Any = None
    set_epoch: Callable[[int], Any] | None = None


def build_spec(build: Callable[..., Any], rank: int, world_size: int) -> Any:
    """Call the spec function with rank and world_size when its signature takes them."""
    try:
        parameters = inspect.signature(build).parameters
    except (TypeError, ValueError):  # a builtin or C callable: call it plainly
        return build()
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    given = {"rank": rank, "world_size": world_size}
    return build(**{k: v for k, v in given.items() if takes_any or k in parameters})


def as_rank_spec(value: Any) -> RankSpec:
    """The validated spec and its distributed keys, or SpecError."""
    extra: dict[str, Any] = {}
    if isinstance(value, dict):
        extra = {k: value[k] for k in DISTRIBUTED_KEYS if k in value}
        value = {k: v for k, v in value.items() if k not in DISTRIBUTED_KEYS}
        if "batch" not in value and extra.get("loader") is not None:
            value["batch"] = _first_batch(extra["loader"])
    loader, set_epoch = extra.get("loader"), extra.get("set_epoch")
    if loader is not None and not hasattr(loader, "__iter__"):
        raise SpecError(f"'loader' must be the rank's DataLoader (an iterable), got {type(loader).__name__}")
    if set_epoch is not None and not callable(set_epoch):
        raise SpecError("'set_epoch' must be callable(epoch), e.g. lambda epoch: loader.sampler.set_epoch(epoch)")
    return RankSpec(as_spec(value), loader, set_epoch)


def _first_batch(loader: Any) -> Any:
    batch = next(iter(loader), None)
    if batch is None:
        raise SpecError("'loader' gave no batch on this rank, and the spec has no 'batch'")
    return tuple(batch) if isinstance(batch, list) and len(batch) == 2 else batch
