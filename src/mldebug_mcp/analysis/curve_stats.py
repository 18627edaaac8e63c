"""Robust statistics the curve detectors share: medians, per-point noise, smoothing, edge levels.

Minibatch losses are noisy and skewed, and one bad batch must not move a level, so everything
here is median-based. `Trace` holds what every detector needs, computed once.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from dataclasses import dataclass
from itertools import pairwise

MAD_TO_SIGMA = 1.4826  # MAD x this = standard deviation, for normal noise
MEDIAN_SE = 1.2533  # standard error of a median of m points = 1.2533 * sigma / sqrt(m)
NOISE_MADS = 3.0  # a change counts as real only beyond 3 standard errors of the noise
EDGE_FRACTION = 0.1  # start and end levels: medians of the first and last 10% of the points
EDGE_MIN_POINTS = 3
SMOOTH_FRACTION = 0.02  # smoothing window: 2% of the run, which keeps swings of a tenth of the run
SMOOTH_MAX_POINTS = 51  # ...but no wider, so that long runs keep their shape


def median(xs: list[float]) -> float:
    ordered = sorted(xs)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def mad_sigma(xs: list[float]) -> float:
    """Standard deviation estimated from the median absolute deviation (blind to outliers)."""
    center = median(xs)
    return MAD_TO_SIGMA * median([abs(x - center) for x in xs])


def noise_sigma(values: list[float]) -> float:
    """Per-point noise from first differences: a slow trend cancels, independent noise adds twice."""
    if len(values) < 3:
        return 0.0
    return mad_sigma([b - a for a, b in pairwise(values)]) / math.sqrt(2)


def edge_size(n: int) -> int:
    return min(n, max(EDGE_MIN_POINTS, round(EDGE_FRACTION * n)))


def smooth_window(n: int) -> int:
    return max(3, min(SMOOTH_MAX_POINTS, int(SMOOTH_FRACTION * n))) | 1


def rolling_median(values: list[float], window: int) -> list[float]:
    """Centred rolling median (the window shrinks at the ends); O(n * window) with a sorted window."""
    half, n = window // 2, len(values)
    ordered: list[float] = []
    lo = hi = 0
    out = []
    for i in range(n):
        while hi < min(n, i + half + 1):
            insort(ordered, values[hi])
            hi += 1
        while lo < i - half:
            del ordered[bisect_left(ordered, values[lo])]
            lo += 1
        mid = len(ordered) // 2
        out.append(ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2)
    return out


def chunk_medians(values: list[float], chunks: int) -> list[float]:
    size = len(values) / chunks
    return [median(values[round(k * size) : round((k + 1) * size)]) for k in range(chunks)]


def scale(x: float) -> float:
    """A denominator for relative changes that never divides by zero."""
    return max(abs(x), 1e-12)


@dataclass(frozen=True)
class Trace:
    """The finite points of a loss series in step order, with its levels and noise."""

    steps: list[int | float]
    values: list[float]
    sigma: float  # per-point noise
    smooth: list[float]  # centred rolling median: trends without single-batch outliers
    start: float  # level at the start (see start_level)
    end: float  # median of the last 10%

    @property
    def n(self) -> int:
        return len(self.values)

    def smooth_sigma(self) -> float:
        return MEDIAN_SE * self.sigma / math.sqrt(smooth_window(self.n))


def start_level(values: list[float], sigma: float) -> float:
    """Median of the first 10%, unless the first three points stand clearly above it: a loss that
    drops within the first few logs would otherwise look as if it started where it landed."""
    window = median(values[: edge_size(len(values))])
    early = median(values[:3])
    return early if early - window > NOISE_MADS * sigma else window


def trace_of(points: list[tuple[int | float, float]]) -> Trace:
    finite = [(step, value) for step, value in points if math.isfinite(value)]
    steps, values = [s for s, _ in finite], [v for _, v in finite]
    sigma = noise_sigma(values)
    return Trace(
        steps=steps,
        values=values,
        sigma=sigma,
        smooth=rolling_median(values, smooth_window(len(values))),
        start=start_level(values, sigma) if values else math.nan,
        end=median(values[-edge_size(len(values)) :]) if values else math.nan,
    )


def level_near(steps: list[int | float], values: list[float], step: int | float, half: int) -> float:
    """Median of the values within `half` points of the point nearest to `step`."""
    i = min(bisect_left(steps, step), len(steps) - 1)
    if i > 0 and abs(steps[i - 1] - step) <= abs(steps[i] - step):
        i -= 1
    return median(values[max(0, i - half) : i + half + 1])
