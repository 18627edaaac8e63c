"""ranks_metric_reduced: the metric the user logs is reduced across ranks (when the spec gives one).

The spec's metric(logits, targets) runs on every rank on that rank's batch, with the model in eval mode,
exactly as the training script would call it before logging. A metric reduced across ranks (all_reduce of
the counts, or torchmetrics' sync) gives one value everywhere; a metric computed on the rank's own shard
gives each rank its own, and the number rank 0 logs describes 1/N of the data.
"""

from __future__ import annotations

import math
from typing import Any

from ..checks.base import FAIL, Check, rounded

CHECK = Check("ranks_metric_reduced", "The logged metric is reduced across ranks",
              ("accelerate-docs/gather-for-metrics",))
TOLERANCE = 1e-6  # relative: a reduced metric is computed from the same all-reduced numbers on every rank


def measure(spec: Any, batch: tuple[Any, Any]) -> dict[str, Any]:
    """The metric on this rank's batch, or why it was not computed."""
    import torch

    from ..checks.tensors import call_model, primary

    if spec.metric is None:
        return {"skipped": "no 'metric' in the spec; add metric=fn(logits, targets), the function whose value "
                           "you log, to check that it is reduced across ranks"}
    fn = spec.metric[0] if isinstance(spec.metric, (tuple, list)) else spec.metric
    model = spec.model
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            value = fn(primary(call_model(model, batch[0])), batch[1])
    finally:
        model.train(training)
    try:
        return {"value": float(value)}
    except (TypeError, ValueError, RuntimeError):
        return {"skipped": f"the metric returned a {type(value).__name__}, not one number"}


def judge(ranks: list[dict[str, Any]]) -> Any:
    seen = [r["metric"] for r in ranks]
    skipped = next((s["skipped"] for s in seen if "skipped" in s), None)
    if skipped:
        return CHECK.skip(skipped)
    values = [s["value"] for s in seen]
    if all(r["batch"] == ranks[0]["batch"] for r in ranks[1:]):
        return CHECK.skip("every rank had the same batch, so a metric of one shard would agree anyway: give each "
                          "rank its own batch (rank-dependent data) for this check to tell them apart")
    spread = max(_relative(values[0], v) for v in values[1:]) if len(values) > 1 else 0.0
    problems: list[tuple[str, str]] = []
    if spread > TOLERANCE:
        shown = ", ".join(f"rank {i}: {rounded(v)}" for i, v in enumerate(values))
        problems.append((FAIL, (f"the metric differs across ranks ({shown}): each rank computes it on its own "
                               f"shard, so the value rank 0 logs covers 1/{len(ranks)} of the data")))
    measured = {"metric_per_rank": [rounded(v) for v in values], "max_relative_difference": rounded(spread)}
    expected = {"metric_per_rank": "one value on every rank (reduced across ranks)"}
    return CHECK.verdict(problems, f"the metric is the same on all {len(ranks)} ranks ({rounded(values[0])}): "
                                   "it is reduced across ranks", measured=measured, expected=expected,
                         meaning=("The logged number is rank 0's shard only: noisier by about sqrt(N), biased when "
                                  "the shards differ (an uneven last batch, a sampler that groups by length), and "
                                  "not what the run's other ranks saw; early stopping or model selection on it "
                                  "picks by one shard." if problems else
                                  "Every rank logs the metric of the whole global batch."),
                         next_test=("Reduce the metric's numerators and denominators (correct and total) with "
                                    "dist.all_reduce before dividing, or use torchmetrics, which syncs its states; "
                                    "rerun with --checks ranks_metric_reduced." if problems else
                                    "Check also that the reduction sums counts rather than averaging per-rank "
                                    "ratios when the shards differ in size."))


def _relative(a: float, b: float) -> float:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b), 1e-12)
