"""Check 7: each weight matrix moves by a sensible fraction of its scale per step."""

from __future__ import annotations

import math
import statistics
from typing import Any

from .base import FAIL, PASS, WARN, Check, rounded
from .precision import half_precision_eps
from .session import Session

CHECK = Check("update_ratio", "Update-to-data ratio per layer", (
    "karpathy-zero-to-hero/ratio-target-1e-3", "cs231n/update-to-value-ratio"))

STEPS = 3  # read after a few steps: Adam's first step is sign(grad) * lr whatever the gradient
# Healthy band in log10(std(update) / std(weight)). Karpathy and CS231n aim near -3; Adam at
# 1e-3 on small layers reads about -1.5 to -2.5 (measured on benchmarks/diagnose_setups), so the
# band is widened upwards: our calibration, not a published number.
WARN_HIGH, FAIL_HIGH, WARN_LOW = -1.0, -0.5, -5.0


def run(s: Session) -> Any:
    s.seeded()
    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model)
    for _ in range(STEPS - 1):
        s.step(model, s.batch, optimizer)
    weights = {n: p for n, p in model.named_parameters() if p.requires_grad and p.ndim >= 2 and p.numel() > 1}
    before = {n: p.detach().clone() for n, p in weights.items()}
    s.step(model, s.batch, optimizer)
    ratios: dict[str, float] = {}
    for name, p in weights.items():
        # A layer initialised far below the scale of its width (softmax regression's N(0, 0.01)) has
        # no scale of its own yet: its updates are read against the std of PyTorch's default init for its
        # width, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), which is 1/sqrt(3 fan_in).
        scale = max(float(before[name].float().std()), (3 * before[name].numel() / before[name].shape[0]) ** -0.5)
        update = float((p.detach() - before[name]).float().std())
        if scale > 0 and update > 0 and math.isfinite(update):
            ratios[name] = rounded(math.log10(update / scale), 3)
        elif not math.isfinite(update):
            ratios[name] = math.inf
    if not ratios:
        return CHECK.skip("no weight matrix moved measurably (see parameter_updates)")
    values = list(ratios.values())
    median = statistics.median(values)
    high = [n for n, v in ratios.items() if v > WARN_HIGH]
    low = [n for n, v in ratios.items() if v < WARN_LOW]
    if median > FAIL_HIGH or any(v > 0 for v in values):
        status = FAIL
        why = half_precision_eps(s) or "each step rewrites the weights, so the learning rate is far too high"
        summary = f"updates are huge (median log10 ratio {median:.2f}; max {max(values):.2f}): {why}"
    elif high:
        status, summary = WARN, f"{len(high)} layers update faster than 10% of their scale per step: {', '.join(high[:4])}"
    elif low or median < WARN_LOW + 1:
        status = WARN
        summary = f"updates are tiny (median log10 ratio {median:.2f}): the learning rate is too low or gradients vanish"
    else:
        status, summary = PASS, f"median log10 update/weight ratio {median:.2f}, all layers within [{WARN_LOW}, {WARN_HIGH}]"
    return CHECK.result(
        status, summary,
        measured={"median_log10_ratio": rounded(median, 3), "max_log10_ratio": max(values),
                  "min_log10_ratio": min(values), "layers": len(values)},
        expected={"reference": -3.0, "healthy_band": [WARN_LOW, WARN_HIGH]},
        series={"log10_update_ratio": ratios},
        details=[f"{n}: {v}" for n, v in ratios.items()],
        meaning="The update-to-weight ratio says how fast each layer learns; far above the band training is "
                "unstable, far below the layer barely moves.",
        next_test="Scale the learning rate by 10x in the direction the ratio suggests and rerun the overfit test.")
