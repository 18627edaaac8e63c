"""The statistics a sweep comparison needs, in pure Python (no numpy, no scipy).

Student's t p-value through the regularised incomplete beta function (continued fraction, as in
Numerical Recipes' betacf), Welch's unequal-variance t, Holm's step-down adjustment (S. Holm, "A simple
sequentially rejective multiple test procedure", Scandinavian Journal of Statistics 6, 1979), a percentile
bootstrap of a mean (or of a difference of means) with a seeded generator, and quantiles by linear
interpolation (pandas' default, which refs/sweeps.md's snippet uses for q10/q90).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

_EPS, _TINY, _MAX_ITER = 3e-16, 1e-300, 400
ROUNDING = 1e-12  # a spread this small relative to the values is float rounding, not seed-to-seed variation


@dataclass(frozen=True)
class TTest:
    """A t statistic, its degrees of freedom and its two-sided p-value; t is None when the spread is 0."""

    t: float | None
    df: float
    p: float


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values)


def sd(values: Sequence[float]) -> float | None:
    """Sample standard deviation (ddof=1); None for fewer than two values."""
    return statistics.stdev(values) if len(values) >= 2 else None


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (numpy/pandas 'linear')."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_ITER + 1):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), for 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def one_sample_t(values: Sequence[float]) -> TTest | None:
    """t of the mean against 0 (the paired t-test on differences); None for fewer than two values.
    All values equal: t is None and p is 0 (a non-zero mean) or 1 (all zero)."""
    n = len(values)
    if n < 2:
        return None
    spread = sd(values) or 0.0
    centre = mean(values)
    if spread <= ROUNDING * max(abs(v) for v in values):  # equal values up to float rounding: no spread
        return TTest(None, n - 1, 0.0 if centre != 0.0 else 1.0)
    t = centre / (spread / math.sqrt(n))
    return TTest(t, n - 1, t_two_sided_p(t, n - 1))


def welch_t(a: Sequence[float], b: Sequence[float]) -> TTest | None:
    """Welch's t of mean(a) - mean(b), with the Welch-Satterthwaite degrees of freedom; None when
    either side has fewer than two values."""
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = (sd(a) or 0.0) ** 2 / len(a), (sd(b) or 0.0) ** 2 / len(b)
    difference = mean(a) - mean(b)
    if math.sqrt(va + vb) <= ROUNDING * max(abs(v) for v in (*a, *b)):
        return TTest(None, len(a) + len(b) - 2, 0.0 if difference != 0.0 else 1.0)
    df = (va + vb) ** 2 / ((va * va / (len(a) - 1) if va else 0.0) + (vb * vb / (len(b) - 1) if vb else 0.0))
    t = difference / math.sqrt(va + vb)
    return TTest(t, df, t_two_sided_p(t, df))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input order: the i-th smallest p is multiplied by
    (m - i + 1), made monotone from the smallest up, and capped at 1."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def bootstrap_mean_ci(values: Sequence[float], level: float, resamples: int, rng: random.Random) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (resampled with replacement)."""
    n = len(values)
    choices = rng.choices
    means = sorted(math.fsum(choices(values, k=n)) / n for _ in range(resamples))
    return _percentiles(means, level)


def bootstrap_difference_ci(a: Sequence[float], b: Sequence[float], level: float, resamples: int,
                            rng: random.Random) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(a) - mean(b), each side resampled on its own (unpaired runs)."""
    choices, na, nb = rng.choices, len(a), len(b)
    differences = sorted(math.fsum(choices(a, k=na)) / na - math.fsum(choices(b, k=nb)) / nb
                         for _ in range(resamples))
    return _percentiles(differences, level)


def _percentiles(ordered: list[float], level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    return quantile(ordered, tail), quantile(ordered, 1.0 - tail)
