"""A metric column beside the loss: which one, and whether it stays flat while the loss falls.

"Loss falls, metric flat" (observation `loss_metric_mismatch`) points at the metric (it ignores the
predictions, reads another split, a stale checkpoint, or pairs predictions with other samples'
labels: diagnose's metric_sanity tests that on constructed predictions) or at a loss that does not
ask for what the metric measures (refs/stuck-metric.md, step 1). Movements within the metric's own
noise do not count: about two standard errors, the stuck-metric sheet's threshold (ours), with the
noise measured from the series' point-to-point scatter, since the evaluation-set size is unknown.
"""

from __future__ import annotations

import math
import re

from ..models.curves import CurveFinding
from .curve_io import LossLog
from .curve_stats import MEDIAN_SE, Trace, level_near, median, scale, trace_of

METRIC_MIN_POINTS = 4  # as for validation series: fewer evaluations cannot show a trend
METRIC_NOISE_SE = 2.0  # movements under two standard errors are noise (refs/stuck-metric.md, step 0; ours)
METRIC_REL_CHANGE = 0.01  # ...and under 1% of the metric's level (ours): a noise-free drift that small is flat
LOSS_FALL = 0.1  # the loss ends 10% or more below where it was when the metric started being logged (ours)
# Name tokens of common metrics (split at /, _, -, . and spaces); a token may carry digits (acc1, top5, f1_macro)
METRIC_WORDS = ("acc", "accuracy", "f1", "iou", "miou", "dice", "bleu", "rouge", "auc", "auroc", "map", "precision",
                "recall", "r2", "top", "wer", "cer", "em", "exact", "match", "score", "metric", "error",
                "err", "mae", "psnr", "ssim", "spearman", "pearson", "corr", "mcc", "kappa")
LOWER_IS_BETTER = ("wer", "cer", "error", "err", "mae")
# Series that hold no metric whatever else their name says ("step" and "epoch" are Lightning's suffixes, not these)
NOT_METRICS = ("loss", "lr", "learning", "grad", "norm", "time", "runtime", "samples", "second",
               "seconds", "memory", "mem", "flos", "tokens", "throughput", "perplexity", "ppl")
HELD_OUT = ("val", "eval", "test", "valid", "validation")
GENERALISE = ("; a held-out metric also stays flat when what the model learns does not generalise: log the same "
              "metric on the training batches to tell the two apart.")


def _tokens(name: str) -> list[str]:
    """Name tokens, each also without trailing digits (acc1 -> acc, map50 -> map; f1 and r2 stay too)."""
    found = []
    for t in re.split(r"[/_\-. @()]+", name.lower()):
        found += [t, t.rstrip("0123456789")] if t else []
    return found


def is_metric(name: str) -> bool:
    tokens = _tokens(name)
    return any(t in METRIC_WORDS for t in tokens) and not any(t in NOT_METRICS for t in tokens)


def pick_metric(log: LossLog, metric: str | None, loss: str) -> str | None:
    """The metric named (UsageError when absent), else the first metric-like series with enough points,
    one on the training split first: beside the training loss it can only stay flat through the metric
    or the loss, while a held-out one also stays flat when the model stops generalising."""
    if metric is not None:
        log.columns(metric)  # raises, listing the series that exist
        return metric
    found = [n for n in log.names if n != loss and is_metric(n) and log.count(n) >= METRIC_MIN_POINTS]
    training = [n for n in found if not is_held_out(n)]
    return (training or found or [None])[0]


def is_held_out(name: str) -> bool:
    return any(t in HELD_OUT for t in _tokens(name))


def find_metric_flat(trace: Trace, name: str, metric_steps, metric_values) -> CurveFinding | None:
    """`loss_metric_mismatch`: over the steps the metric covers (4 points at least), the training loss
    falls by 10% or more while the median of the metric's last third stays within two standard errors
    (or 1%) of the median of its first third. A metric sitting at a best value (1, 100, or 0 for
    an error) is saturated, not stuck."""
    m = trace_of(metric_steps, metric_values)
    if m.n < METRIC_MIN_POINTS:
        return None
    inside = [s for s in m.steps if trace.steps[0] <= s <= trace.steps[-1]]
    if len(inside) < METRIC_MIN_POINTS:
        return None
    half = max(2, trace.n // 50)  # the training level around a step, as curve_val does
    loss_from, loss_to = level_near(trace.steps, trace.values, inside[0], half), level_near(trace.steps, trace.values, inside[-1], half)
    if not loss_from - loss_to >= LOSS_FALL * scale(loss_from):
        return None
    part = max(2, m.n // 3)  # the first and last thirds: a level each, steadier than single evaluations
    start, end = median(m.values[:part]), median(m.values[-part:])
    moved = abs(end - start)
    noise = METRIC_NOISE_SE * MEDIAN_SE * m.sigma * math.sqrt(2 / part)  # standard error of a difference of two medians
    if moved > max(METRIC_REL_CHANGE * abs(start), noise) or _saturated(name, start):
        return None
    return CurveFinding(
        observation="loss_metric_mismatch",
        step=m.steps[0],
        summary=f"the training loss falls from {loss_from:.4g} to {loss_to:.4g} between steps {inside[0]} and "
        f"{inside[-1]} while {name} stays at {start:.4g} (its last third ends {moved:.3g} from its first, within "
        f"its noise, over {m.n} points).",
        meaning="The metric does not follow the loss: check the metric itself on perfect and shuffled predictions "
        "(diagnose's metric_sanity), that it is computed in eval mode on the split and checkpoint you think, then "
        "whether the loss rewards what the metric measures (refs/stuck-metric.md)"
        + (GENERALISE if is_held_out(name) else "."),
        values={"metric_start": start, "metric_end": end, "metric_change": moved, "metric_noise": noise, "metric_points": m.n,
                "loss_at_metric_start": loss_from, "loss_at_metric_end": loss_to},
    )


def _saturated(name: str, level: float) -> bool:
    best = (0.0,) if any(t in LOWER_IS_BETTER for t in _tokens(name)) else (1.0, 100.0)
    return any(abs(level - b) <= 1e-9 * max(1.0, b) for b in best)
