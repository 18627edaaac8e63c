"""Robust statistics the curve detectors share: medians, per-point noise, smoothing, edge levels.

Minibatch losses are noisy and skewed, and one bad batch must not move a level, so everything
here is median-based. `Trace` holds what every detector needs, computed once.
"""

from __future__ import annotations

import math
import operator
from array import array
from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat

from .curve_window import MedianWindow

MAD_TO_SIGMA = 1.4826  # MAD x this = standard deviation, for normal noise
MEDIAN_SE = 1.2533  # standard error of a median of m points = 1.2533 * sigma / sqrt(m)
NOISE_MADS = 3.0  # a change counts as real only beyond 3 standard errors of the noise
EDGE_FRACTION = 0.1  # start and end levels: medians of the first and last 10% of the points
EDGE_MIN_POINTS = 3
SMOOTH_FRACTION = 0.02  # smoothing window: 2% of the run, which keeps swings of a tenth of the run
SMOOTH_MAX_POINTS = 51  # ...but no wider, so that long runs keep their shape
SELECT_MIN = 50_000  # from this length a median is selected around a sample instead of sorting all
SELECT_SAMPLE = 4096


def median(xs) -> float:
    if len(xs) >= SELECT_MIN:
        found = _select_median(xs)
        if found is not None:
            return found
    ordered = sorted(xs)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _select_median(xs) -> float | None:
    """The median of a long series without sorting it all: a sorted sample brackets the middle,
    one pass counts the values below the bracket and keeps those inside it, and only those are
    sorted. The same value as sorting everything (equal values keep their order in both); None
    when the bracket misses the middle or the values do not all compare (NaN)."""
    n = len(xs)
    sample = sorted(xs[:: max(1, n // SELECT_SAMPLE)])
    margin = 4 * math.isqrt(len(sample)) + 8  # ~4 standard deviations of a sample rank
    centre = len(sample) // 2
    lo, hi = sample[max(0, centre - margin)], sample[min(len(sample) - 1, centre + margin)]
    below = sum(map(lo.__gt__, xs))
    inside = [x for x in xs if lo <= x <= hi]
    if below + len(inside) + sum(map(hi.__lt__, xs)) != n:
        return None
    first, second = (n - 1) // 2 - below, n // 2 - below
    if first < 0 or second >= len(inside):
        return None
    inside.sort()
    return inside[first] if n % 2 else (inside[first] + inside[second]) / 2


def mad_sigma(xs) -> float:
    """Standard deviation estimated from the median absolute deviation (blind to outliers)."""
    center = median(xs)
    return MAD_TO_SIGMA * median(array("d", map(abs, map(operator.sub, xs, repeat(center)))))


def noise_sigma(values) -> float:
    """Per-point noise from first differences: a slow trend cancels, independent noise adds twice."""
    if len(values) < 3:
        return 0.0
    return mad_sigma(array("d", map(operator.sub, islice(values, 1, None), values))) / math.sqrt(2)


def edge_size(n: int) -> int:
    return min(n, max(EDGE_MIN_POINTS, round(EDGE_FRACTION * n)))


def smooth_window(n: int) -> int:
    return max(3, min(SMOOTH_MAX_POINTS, int(SMOOTH_FRACTION * n))) | 1


def rolling_median(values, window: int) -> array:
    """Centred rolling median (the window shrinks at the ends)."""
    half = window // 2
    return sliding_medians(values, -half, half + 1)


def sliding_medians(values, lo: int, hi: int, start: int = 0) -> array:
    """For each i from `start` on, the median of values[i + lo : i + hi] (clipped to the series,
    never empty). A sorted copy of the window slides along, one value in and one out per point:
    O(n * window), which is O(n) for the bounded windows used here (at most 51 points)."""
    n = len(values)
    first_full, last_full = max(start, -lo), min(n, n - hi + 1)  # where the window is not clipped
    if first_full >= last_full:
        return _clipped_medians(values, lo, hi, range(start, n))
    out = _clipped_medians(values, lo, hi, range(start, first_full))
    ordered = sorted(values[first_full + lo : first_full + hi])
    mid, odd = (hi - lo) // 2, (hi - lo) % 2
    out.append(ordered[mid] if odd else (ordered[mid - 1] + ordered[mid]) / 2)
    gone = islice(values, first_full + lo, last_full - 1 + lo)
    new = islice(values, first_full + hi, last_full - 1 + hi)
    append = out.append
    for old, fresh in zip(gone, new):
        if old != fresh:
            del ordered[bisect_left(ordered, old)]
            insort(ordered, fresh)
        append(ordered[mid] if odd else (ordered[mid - 1] + ordered[mid]) / 2)
    out.extend(_clipped_medians(values, lo, hi, range(last_full, n)))
    return out


def _clipped_medians(values, lo: int, hi: int, indices: range) -> array:
    """Medians of the windows that the ends of the series clip (a few points each end)."""
    n = len(values)
    return array("d", (median(values[max(0, i + lo) : min(n, i + hi)]) for i in indices))


def chunk_medians(values: list[float], chunks: int) -> list[float]:
    size = len(values) / chunks
    return [median(values[round(k * size) : round((k + 1) * size)]) for k in range(chunks)]


def scale(x: float) -> float:
    """A denominator for relative changes that never divides by zero."""
    return max(abs(x), 1e-12)


@dataclass(frozen=True)
class Trace:
    """The finite points of a loss series in step order, with its levels and noise."""

    steps: Sequence[int | float]  # array("q") or a list
    values: Sequence[float]  # array("d")
    sigma: float  # per-point noise
    smooth: Sequence[float]  # centred rolling median: trends without single-batch outliers
    start: float  # level at the start (see start_level)
    end: float  # median of the last 10%

    @property
    def n(self) -> int:
        return len(self.values)

    def smooth_sigma(self) -> float:
        return MEDIAN_SE * self.sigma / math.sqrt(smooth_window(self.n))


def start_level(values, sigma: float) -> float:
    """Median of the first 10%, unless the first three points stand clearly above it: a loss that
    drops within the first few logs would otherwise look as if it started where it landed."""
    window = median(values[: edge_size(len(values))])
    early = median(values[:3])
    return early if early - window > NOISE_MADS * sigma else window


def finite_only(steps, values) -> tuple[Sequence[int | float], array]:
    """The points whose value is finite (the arrays themselves when all are)."""
    values = values if isinstance(values, array) else array("d", values)
    if all(map(math.isfinite, values)):
        return steps, values
    keep = list(map(math.isfinite, values))
    kept = list(compress(steps, keep))
    return (array(steps.typecode, kept) if isinstance(steps, array) else kept), array("d", compress(values, keep))


def trace_of(steps, values) -> Trace:
    steps, values = finite_only(steps, values)
    sigma = noise_sigma(values)
    return Trace(
        steps=steps,
        values=values,
        sigma=sigma,
        smooth=rolling_median(values, smooth_window(len(values))),
        start=start_level(values, sigma) if values else math.nan,
        end=median(values[-edge_size(len(values)) :]) if values else math.nan,
    )


def nearest_index(steps, step: float) -> int:
    """The index of the point nearest to `step` (the earlier one on a tie)."""
    i = min(bisect_left(steps, step), len(steps) - 1)
    if i > 0 and abs(steps[i - 1] - step) <= abs(steps[i] - step):
        i -= 1
    return i


def level_near(steps, values, step: float, half: int) -> float:
    """Median of the values within `half` points of the point nearest to `step`."""
    i = nearest_index(steps, step)
    return median(values[max(0, i - half) : i + half + 1])


def levels_near(steps, values, at: Sequence[int | float], half: int) -> list[float]:
    """level_near for each step of `at` (in increasing order), in O((n + len(at)) log n): the window
    slides through a MedianWindow instead of being sorted again for every step."""
    window = MedianWindow()
    lo = hi = 0  # the window holds values[lo:hi]
    levels = []
    for step in at:
        i = nearest_index(steps, step)
        first, end = max(0, i - half), min(len(values), i + half + 1)
        if first < lo or first >= hi or end - hi > (end - first) // 2:  # moved far: sorting afresh is cheaper
            window = MedianWindow(sorted(values[first:end]))
        else:
            window.add(values[hi:end])
            window.remove(values[lo:first])
        lo, hi = first, end
        levels.append(window.median())
    return levels
