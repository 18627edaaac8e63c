"""Detectors of direction on the training loss: divergence, oscillation, and a healthy descent."""

from __future__ import annotations

import math
from array import array
from itertools import pairwise

from ..models.curves import CurveFinding
from .curve_shape import FLAT_REL_CHANGE
from .curve_stats import (
    MEDIAN_SE,
    NOISE_MADS,
    Trace,
    edge_size,
    median,
    noise_sigma,
    scale,
    smooth_window,
)

EXPLODE_FACTOR = 2.0  # ending at twice the best level is divergence, not noise around a minimum
EXPLODE_GROWTH = 0.1  # "still growing": the last 10% sits 10% above the 10% before it
EXPLODE_ONSET = 0.1  # divergence starts where the smoothed loss leaves 10% above its minimum
OSC_SWING = 0.15  # a swing moves the smoothed loss by 15% of its level: far above minibatch noise
OSC_MIN_REVERSALS = 4  # two full cycles, so that one bump is not called an oscillation
OSC_SWING_TO_NET = 3.0  # the swings travel 3x the net change: there is no trend to speak of


def find_explosion(trace: Trace) -> CurveFinding | None:
    """`explodes`: after the minimum of the smoothed loss, the last 10% ends at 2x that minimum or
    more, and either above the start level or still growing (last 10% is 10% above the 10% before).
    The onset is the first step after which the smoothed loss never returns within 10% of its
    minimum. Needs a positive minimum: "a multiple of the minimum" means nothing otherwise."""
    low_index = min(range(trace.n), key=trace.smooth.__getitem__)
    low = trace.smooth[low_index]
    if low <= 0 or trace.end < EXPLODE_FACTOR * low:
        return None
    edge = edge_size(trace.n)
    before_end = trace.values[-2 * edge : -edge] or trace.values[:1]
    growing = trace.end > (1 + EXPLODE_GROWTH) * median(before_end)
    if not (trace.end > trace.start or growing):
        return None
    onset = next(i + 1 for i in range(trace.n - 1, low_index - 1, -1) if trace.smooth[i] <= low * (1 + EXPLODE_ONSET))
    onset = min(onset, trace.n - 1)
    how = "and is still growing" if growing else f"above its start of {trace.start:.4g}"
    return CurveFinding(
        observation="explodes",
        step=trace.steps[onset],
        # The smoothed minimum, said so: beside the raw minimum the header prints, an unqualified "minimum" read as
        # a misreading (A/B task t18: smoothed 0.0754 at step 1500 against a raw 0.0482 at step 750).
        summary=f"the smoothed training loss reached its lowest level {low:.4g} at step {trace.steps[low_index]}, then "
        f"rose from step {trace.steps[onset]} on to {trace.end:.4g} ({trace.end / low:.1f}x that level) {how}.",
        meaning="The optimisation diverged: the learning rate is too high for this stage of training (or the "
        "warmup too short), or a numerically unstable operation blew up.",
        values={"min": low, "min_step": trace.steps[low_index], "onset_step": trace.steps[onset],
                "end": trace.end, "ratio_to_min": trace.end / low, "start": trace.start},
    )


def turning_points(xs: list[float], swing: float) -> list[int]:
    """Extremes of a zigzag that ignores moves smaller than `swing`: the first extreme, every
    reversal, and the last extreme. A monotone series gives two points."""
    turns: list[int] = []
    hi = lo = extreme = 0
    direction = 0
    for i, x in enumerate(xs):
        if direction == 0:
            hi = i if x > xs[hi] else hi
            lo = i if x < xs[lo] else lo
            if xs[hi] - xs[lo] >= swing:
                direction = 1 if hi > lo else -1
                turns.append(lo if direction == 1 else hi)
                extreme = hi if direction == 1 else lo
        elif (x - xs[extreme]) * direction > 0:
            extreme = i
        elif (xs[extreme] - x) * direction >= swing:
            turns.append(extreme)
            direction, extreme = -direction, i
    return turns + [extreme] if direction else turns


def find_oscillation(trace: Trace) -> CurveFinding | None:
    """`oscillates`: the smoothed loss reverses direction at least 4 times by more than 15% of its
    level (in log space for positive losses, so 15% means the same at every level), and the zigzag's
    total travel is at least 3x the net change from start to end."""
    positive = min(trace.smooth) > 0 and trace.start > 0 and trace.end > 0
    curve = array("d", map(math.log, trace.smooth)) if positive else trace.smooth  # arrays: 8 bytes a value
    if positive:
        swing, net = math.log1p(OSC_SWING), abs(math.log(trace.start / trace.end))
        noise = noise_sigma(array("d", map(math.log, filter((0.0).__lt__, trace.values))))
    else:
        swing, net = OSC_SWING * median([abs(v) for v in trace.values]), abs(trace.start - trace.end)
        noise = trace.sigma
    # a reversal compares two extremes of the smoothed curve, and noise can push each one 3 standard errors
    swing = max(swing, 2 * NOISE_MADS * MEDIAN_SE * noise / math.sqrt(smooth_window(trace.n)))
    turns = turning_points(curve, swing)
    reversals = max(0, len(turns) - 2)
    travel = sum(abs(curve[b] - curve[a]) for a, b in pairwise(turns))
    if reversals < OSC_MIN_REVERSALS or travel < OSC_SWING_TO_NET * max(net, swing):
        return None
    mean_leg = travel / (len(turns) - 1)
    if positive:
        size, swings = math.exp(mean_leg), f"by a factor of {math.exp(mean_leg):.2f}"
    else:
        size = mean_leg / scale(median([abs(v) for v in trace.values]))
        swings = f"by {size:.0%} of its typical size"
    return CurveFinding(
        observation="oscillates",
        step=None,
        summary=f"the smoothed training loss reverses direction {reversals} times, swinging {swings} on average, "
        f"and travels {travel / max(net, 1e-12):.1f}x its net change.",
        meaning="Large swings without a trend usually mean the learning rate is too high for the curvature, or the "
        "data arrive in an order that is not shuffled.",
        values={"reversals": reversals, "mean_swing": size, "travel_to_net": travel / max(net, 1e-12)},
    )


def find_healthy(trace: Trace) -> CurveFinding | None:
    """`slow_healthy`: the end level is at least 5% below the start level. The caller gives it only
    when no other observation fired, so it means "falls, and nothing in the shape looks wrong"."""
    fell = (trace.start - trace.end) / scale(trace.start)
    if fell < FLAT_REL_CHANGE:
        return None
    return CurveFinding(
        observation="slow_healthy",
        step=None,
        summary=f"the training loss falls from {trace.start:.4g} to {trace.end:.4g} ({fell:.0%} lower) "
        "without NaN, spikes, plateaus, divergence or swings.",
        meaning="Nothing in the curve's shape points to a bug; if it is slower or ends higher than hoped, tune the "
        "learning rate and schedule against a known-good baseline.",
        values={"start": trace.start, "end": trace.end, "relative_drop": fell},
    )
