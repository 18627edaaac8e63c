"""Check 10: the output of one sample never depends on another sample's input (in eval mode)."""

from __future__ import annotations

from typing import Any

from .base import FAIL, PASS, WARN, Check, rounded
from .batch_format import pairwise_tensor
from .dependence import depends
from .session import Session
from .tensors import batch_size

CHECK = Check("batch_independence", "Batch independence", (
    "karpathy-recipe/backprop-to-chart-dependencies",))

TOLERANCE = 1e-6  # exact independence gives 0; allow float noise from batched kernels
BATCH_MIXERS = ("BatchNorm", "SyncBatchNorm")


def run(s: Session) -> Any:
    import torch

    inputs = s.batch[0]
    n = batch_size(inputs)
    if n < 2:
        return CHECK.skip("the batch has one sample; use at least two")
    graph = pairwise_tensor(s)
    if graph is not None:
        return CHECK.skip(f"the batch is one graph, not independent samples: {graph} relates its rows pairwise, "
                          f"so each row may read the others by design")
    i = n // 2
    results = {}
    for mode in ("eval", "train"):
        s.seeded()
        model = s.fresh_model(train=mode == "train")
        generator = torch.Generator().manual_seed(s.probe_seed)

        def logits_of(x: Any, model: Any = model) -> Any:
            s.seeded(2)  # same dropout mask on every call
            return s.logits(model, x)

        out = logits_of(inputs).detach()
        if out.ndim == 0 or out.shape[0] != n:
            return CHECK.skip(f"the output's first dimension is {tuple(out.shape)[:1]}, not the batch size {n}")
        results[mode] = depends(logits_of, inputs, i, lambda t: _others(t, i), generator)
    mixers = sorted({type(m).__name__ for m in s.spec.model.modules() if type(m).__name__.startswith(BATCH_MIXERS)})
    measured = {"sample": i, "eval_leak": rounded(results["eval"]), "train_leak": rounded(results["train"]),
                "batch_mixing_modules": mixers}
    details = []
    if results["eval"] > TOLERANCE:
        status = FAIL
        summary = (f"in eval mode, sample {i}'s output depends on other samples (relative mass "
                   f"{results['eval']:.2g}): a view/reshape where transpose/permute belongs, or batch_first mixed up")
    elif results["train"] > TOLERANCE and not mixers:
        status = WARN
        summary = "samples mix only in train mode, with no BatchNorm to explain it: look for batch statistics in forward"
    else:
        status, summary = PASS, f"sample {i}'s output depends only on its own input in eval mode"
        if results["train"] > TOLERANCE:
            details.append(f"train mode mixes samples through {', '.join(mixers)}: expected")
    return CHECK.result(
        status, summary, measured=measured, details=details, expected={"eval_leak": 0.0},
        meaning="Samples must not see each other; a network that mixes them still trains, learning to ignore "
                "the others, so the bug is silent.",
        next_test="Rerun with prime-sized dimensions (odd_shapes) to turn the mixing into a shape error on the guilty line.")


def _others(t: Any, i: int) -> Any:
    import torch

    mask = torch.ones_like(t, dtype=torch.float32)
    mask[i] = 0
    return mask
