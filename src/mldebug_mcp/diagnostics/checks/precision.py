"""Facts of the parameters' dtype that change what a failed training run means."""

from __future__ import annotations

from typing import Any


def half_precision_eps(s: Any) -> str | None:
    """Why a model whose weights are float16 gets NaN from an Adam-like optimizer at every rate, or None.

    The optimizer's eps is added to sqrt(second moment) before dividing; float16 rounds 1e-8 (Adam's default)
    to 0, and its second moments underflow to 0 for small gradients, so the step divides by zero. Settled by
    running it: tests/diagnostics/test_precision.py."""
    import torch

    if "half_precision_eps" in s.memo:
        return s.memo["half_precision_eps"]
    found = None
    trainable = [p for p in s.spec.model.parameters() if p.requires_grad]
    if any(p.dtype == torch.float16 for p in trainable):
        model = s.fresh_model()
        eps = s.make_optimizer(model).defaults.get("eps")
        if isinstance(eps, float) and float(torch.tensor(eps, dtype=torch.float16)) == 0.0:
            found = (f"the weights are float16 and the optimizer's eps ({eps:g}) is 0 in float16, so where a second "
                     f"moment underflows the update divides by zero (NaN at any rate): keep float32 weights and train "
                     f"under torch.autocast with a GradScaler, or give eps a value float16 holds (its smallest normal "
                     f"number is {torch.finfo(torch.float16).tiny:.2g})")
    s.memo["half_precision_eps"] = found
    return found
