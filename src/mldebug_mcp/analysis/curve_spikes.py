"""Loss spikes: sudden jumps far above the local level, classified by how they recover.

Positive losses are judged in log space, where minibatch noise is about the same size at every
level. A point is a spike when it stands above the median of the points just before it by at least
6 robust standard deviations of the noise AND by at least 25% of that median, AND at least half of
that excess arrived at once (a steady climb is divergence, left to `explodes`). The spike has
recovered at the first point from which the median of the next five is back within the band of
the pre-spike median (2 standard deviations or 10%, whichever is wider).
"""

from __future__ import annotations

import math
from array import array
from itertools import islice

from ..models.curves import CurveFinding, CurveSpike
from .curve_stats import Trace, mad_sigma, median, noise_sigma, sliding_medians

SPIKE_WINDOW = 25  # trailing points that set the local level: a stable median that still follows the trend
SPIKE_MIN_HISTORY = 8  # no verdict before 8 points of history
SPIKE_MADS = 6.0  # skewed minibatch noise reaches 4-5 standard deviations in 100k steps, not 6
SPIKE_REL = 0.25  # ...and a quarter above the median, so near-constant curves (noise ~ 0) keep tiny blips
SPIKE_SUDDEN = 0.5  # half the excess must arrive within one point of the previous three's median
RECOVERY_MADS = 2.0  # back within 2 standard deviations of the pre-spike level (the median of five
#   points has a standard error of ~0.56 of one, so every true return lands inside)...
RECOVERY_REL = 0.1  # ...or within 10% of it, whichever band is wider
RECOVERY_CONFIRM = 5  # the median of five points must be back: noise alone cannot fake a recovery
FAST_RECOVERY_POINTS = 10  # Adam's first moment forgets a batch in ~1/(1 - beta1) = 10 steps

MEANINGS = {
    "spike_fast_recovery": "Short spikes that heal by themselves usually come from a few unusual batches "
    "(outliers, mislabelled or very long examples) and are harmless unless they become frequent.",
    "spike_slow_recovery": "A spike that takes many steps to heal has moved the weights or the optimizer state: "
    "the learning rate is near its stability limit, so clip gradients or lower the rate.",
    "spike_no_recovery": "The run lost what it had learned at that jump (an unstable update from a high learning "
    "rate, an fp16 overflow or a bad batch): restart from an earlier checkpoint with a lower rate or clipping.",
}


def find_spikes(trace: Trace) -> list[CurveSpike]:
    """Every spike of the training loss in step order (criterion in the module docstring); each is
    `spike_fast_recovery` when back within 10 points, `spike_slow_recovery` when back later,
    `spike_no_recovery` when never back although 10 or more points follow, and unclassified (kind
    None) when the log ends sooner. The trailing medians come from one sliding window, and a
    recovery is looked up in a tree of minimums, so the whole search is O(n log n)."""
    positive = min(trace.values, default=0.0) > 0
    z = array("d", map(math.log, trace.values)) if positive else trace.values
    # the run's typical noise, so that a quiet window cannot make its noise look tiny (exact zeros,
    # a loss_zero stretch, would make it zero)
    floor = noise_sigma([x for x in z if abs(x) > 1e-12] if not positive else z)
    trailing = sliding_medians(z, -SPIKE_WINDOW, 0, SPIKE_MIN_HISTORY)  # trailing[k]: before point k + 8
    recovery = _Recovery(z)
    spikes: list[CurveSpike] = []
    resume = SPIKE_MIN_HISTORY  # no new spike starts inside one still being followed
    for i in _candidates(z, trailing, positive):
        if i < resume:
            continue
        window = z[max(0, i - SPIKE_WINDOW) : i]
        local = trailing[i - SPIKE_MIN_HISTORY]
        sigma = max(mad_sigma(window), floor)
        excess = z[i] - local
        if excess <= SPIKE_MADS * sigma or z[i] - median(z[i - 3 : i]) < SPIKE_SUDDEN * excess:
            continue
        band = local + max(RECOVERY_MADS * sigma, math.log1p(RECOVERY_REL) if positive else RECOVERY_REL * abs(local))
        back = recovery.first_back(i + 1, band)
        spikes.append(_spike(trace, i, back, math.exp(local) if positive else local))
        resume = back if back is not None else i + SPIKE_WINDOW
    return spikes


def _candidates(z, trailing, positive: bool) -> list[int]:
    """The points that stand more than 25% above their trailing median: the cheap test, which most
    points fail."""
    start = SPIKE_MIN_HISTORY
    if positive:
        relative = math.log1p(SPIKE_REL)
        return [i for i, x, local in zip(range(start, len(z)), islice(z, start, None), trailing) if x - local > relative]
    return [i for i, x, local in zip(range(start, len(z)), islice(z, start, None), trailing)
            if SPIKE_REL * abs(local) > 1e-12 and x - local > SPIKE_REL * abs(local)]


class _Recovery:
    """Where a spike is back: the first j with median(z[j : j + 5]) <= band. A few points are
    tried one by one; a longer search builds (once) a tree of minimums over those medians."""

    SCAN = 64  # most spikes recover within a few points

    def __init__(self, z) -> None:
        self.z = z
        self.levels: list[array] | None = None

    def first_back(self, start: int, band: float) -> int | None:
        z, n = self.z, len(self.z)
        for j in range(start, min(n, start + self.SCAN)):
            if median(z[j : j + RECOVERY_CONFIRM]) <= band:
                return j
        return self._search(start + self.SCAN, band) if start + self.SCAN < n else None

    def _search(self, start: int, band: float) -> int | None:
        """The first index >= start whose median is <= band: up the tree while the nodes to the
        right are all above the band, then down to the leftmost leaf within it."""
        levels = self.levels or self._build()
        level, i = 0, start
        while True:
            if i >= len(levels[level]):
                return None
            if levels[level][i] <= band:
                break
            i += 1
            while i % 2 == 0 and level + 1 < len(levels):  # i starts a pair: its parent covers both
                level, i = level + 1, i // 2
        while level:
            level, i = level - 1, 2 * i
            if levels[level][i] > band:
                i += 1
        return i

    def _build(self) -> list[array]:
        levels = [sliding_medians(self.z, 0, RECOVERY_CONFIRM)]
        while len(levels[-1]) > 1:
            below = levels[-1]
            pairs = array("d", map(min, below[0::2], below[1::2]))
            if len(below) % 2:
                pairs.append(below[-1])
            levels.append(pairs)
        self.levels = levels
        return levels


def _spike(trace: Trace, start: int, back: int | None, local: float) -> CurveSpike:
    values, steps = trace.values, trace.steps
    last = back if back is not None else min(trace.n, start + SPIKE_WINDOW)
    peak = max(range(start, last), key=values.__getitem__)
    if back is not None:
        kind = "spike_fast_recovery" if back - start <= FAST_RECOVERY_POINTS else "spike_slow_recovery"
    else:
        kind = "spike_no_recovery" if trace.n - 1 - start >= FAST_RECOVERY_POINTS else None
    return CurveSpike(
        step=steps[start],
        peak_step=steps[peak],
        peak=values[peak],
        local_median=local,
        height=values[peak] / local if local > 0 else None,
        recovery_steps=steps[back] - steps[start] if back is not None else None,
        recovery_points=back - start if back is not None else None,
        kind=kind,
    )


def spike_findings(spikes: list[CurveSpike]) -> list[CurveFinding]:
    """One finding per kind of recovery, listing where its spikes are."""
    findings = []
    for kind, meaning in MEANINGS.items():
        group = [s for s in spikes if s.kind == kind]
        if not group:
            continue
        tallest = max(group, key=lambda s: s.height or 0.0)
        where = ", ".join(str(s.step) for s in group[:8]) + (", ..." if len(group) > 8 else "")
        count = f"{len(group)} spikes at steps {where}" if len(group) > 1 else f"1 spike at step {where}"
        height = (f"{tallest.height:.1f}x the local median" if tallest.height
                  else f"{tallest.peak:.4g} from {tallest.local_median:.4g}")
        values: dict[str, int | float] = {"count": len(group), "first_step": group[0].step}
        if tallest.height:
            values["max_height"] = tallest.height
        if kind == "spike_no_recovery":
            after = f"the loss never came back to {group[0].local_median:.4g}"
        else:
            slowest = max(s.recovery_steps or 0 for s in group)
            values["max_recovery_steps"] = slowest
            after = f"{'each was' if len(group) > 1 else 'it was'} back within the noise band after " \
                    f"{'at most ' if len(group) > 1 else ''}{slowest} step{'s' if slowest != 1 else ''}"
        findings.append(CurveFinding(
            observation=kind,
            step=group[0].step,
            summary=f"{count}; the tallest reaches {height} at step {tallest.peak_step}, and {after}.",
            meaning=meaning,
            values=values,
        ))
    return findings
