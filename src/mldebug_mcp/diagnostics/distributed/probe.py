"""What one rank measures, for rank 0 to compare: weights before and after one training step, the
gradients of that step, the samples its data loader hands out, its random streams, the gradient norms it
clipped by, its BatchNorm statistics and the spec's metric; then (inject_nonfinite, after the first
gather) how it acts on an inf injected into one rank's gradient.

The step is the user's train_step when given, else zero_grad, loss, backward, step. It runs the
model's own collectives (DDP's gradient all-reduce), so an exception in it ends the run: the other
ranks would otherwise wait for this one in a collective it never reaches. Every rank measures the same
things in the same order (`wanted` is the same everywhere), so the collectives inside them match.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from ..checks.batch_format import as_given, split_batch
from ..checks.model_loss import computes_own_loss, loss_in
from ..checks.tensors import call_model, tensors_in
from . import (
    checks_batchnorm,
    checks_clipping,
    checks_data,
    checks_metric,
    checks_nonfinite,
    checks_random,
)
from .fingerprint import fingerprint, fingerprints, sharded
from .rank_spec import RankSpec

DEFAULT_LR = 3e-4  # as the single-process checks: Adam at Karpathy's safe default


def measure(rank_spec: RankSpec, rank: int, wanted: set[str] | None = None) -> dict[str, Any]:
    """This rank's measurements, as plain data (all-gathered to rank 0). `wanted`: the check ids to measure
    for (None: all)."""
    import torch

    started = time.perf_counter()
    spec, model = rank_spec.spec, rank_spec.spec.model
    local: dict[str, Any] = {"rank": rank, "random": checks_random.measure(rank_spec),
                             "data": checks_data.measure(rank_spec)}
    plain = [(n, p) for n, p in model.named_parameters() if not sharded(p)]
    local["sharded"] = len(list(model.parameters())) - len(plain)
    local["params_start"] = fingerprints(plain)
    local["outside_ddp"], local["has_ddp"] = outside_ddp(model)
    batch = split_batch(spec.batch)
    local["batch"] = [fingerprint(t) for _, t in tensors_in(batch[0])]
    rng_before = fingerprint(torch.get_rng_state())
    step_started = time.perf_counter()
    with checks_clipping.recording() as norms:
        local["loss"] = _step(rank_spec, batch)
    local["step_seconds"] = round(time.perf_counter() - step_started, 4)
    local["step_draws"] = checks_random.draws(rng_before)
    local["clip_norms"] = checks_clipping.as_numbers(norms)
    local["grads"] = fingerprints((n, p.grad) for n, p in plain if p.requires_grad)
    local["params_after"] = fingerprints(plain)
    local["batchnorm"] = checks_batchnorm.measure(model, batch[0])
    if wanted is None or checks_metric.CHECK.id in wanted:
        local["metric"] = checks_metric.measure(spec, batch)
    local["seconds"] = round(time.perf_counter() - started, 4)
    return local


def inject_nonfinite(rank_spec: RankSpec, rank: int, world_size: int) -> dict[str, Any]:
    """The second step, with an inf in the last rank's gradient (run after the first gather, so only when every
    rank got through the first step and its collectives in step)."""
    batch = split_batch(rank_spec.spec.batch)
    return checks_nonfinite.measure(rank_spec.spec.model, rank, world_size, lambda: _step(rank_spec, batch))


def outside_ddp(model: Any) -> tuple[list[str], bool]:
    """The trainable parameters that no DistributedDataParallel (or FSDP) wrapper inside `model` holds, and
    whether there is such a wrapper at all."""
    from torch.nn.parallel import DistributedDataParallel

    kinds: tuple[type, ...] = (DistributedDataParallel,)
    fsdp = sys.modules.get("torch.distributed.fsdp")  # loaded by the user's code when it uses FSDP (1 s to import)
    kinds += tuple(getattr(fsdp, name) for name in ("FullyShardedDataParallel", "FSDPModule") if hasattr(fsdp, name))
    wrappers = [m for m in model.modules() if isinstance(m, kinds)]
    held = {id(p) for w in wrappers for p in w.parameters()}
    return [n for n, p in model.named_parameters() if p.requires_grad and id(p) not in held], bool(wrappers)


def _step(rank_spec: RankSpec, batch: tuple[Any, Any]) -> float | None:
    spec, model = rank_spec.spec, rank_spec.spec.model
    model.train()
    optimizer = _optimizer(spec.optimizer, model)
    if spec.train_step is not None:
        loss = spec.train_step(model, as_given(batch, isinstance(spec.batch, dict)), optimizer)
    else:
        optimizer.zero_grad(set_to_none=True)
        output = call_model(model, batch[0])
        loss = loss_in(output) if computes_own_loss(spec.loss_fn) else spec.loss_fn(output, batch[1])
        loss.backward()
        optimizer.step()
    try:
        return float(loss.detach() if hasattr(loss, "detach") else loss)
    except (TypeError, ValueError, RuntimeError):
        return None


def _optimizer(factory: Any, model: Any) -> Any:
    import torch

    if factory is None:
        return torch.optim.Adam(model.parameters(), lr=DEFAULT_LR)
    if isinstance(factory, torch.optim.Optimizer):
        return factory  # the user's own, over the model's own tensors: nothing is copied in a rank
    return factory(model.parameters())
