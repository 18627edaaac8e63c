"""Quadratic fits of a 1-D slice: L(alpha) ~ a + b alpha + c alpha^2 / 2 near alpha = 0 (pure Python)."""

from __future__ import annotations

import math

FIT_POINTS = 5  # 0, +-h, +-2h: the fewest that both fit a parabola and show whether it fits


def quadratic_fit(alphas: list[float], losses: list[float], points: int = FIT_POINTS) -> tuple[float, float, float]:
    """(L0, slope, curvature) of the least-squares parabola through the `points` finite points nearest 0.

    Near the point the loss is its second-order Taylor expansion, so slope and curvature are dL/dalpha and
    d2L/dalpha2 there; the nearest points keep the higher orders out. NaN when fewer than 3 are finite."""
    pairs = sorted(((a, v) for a, v in zip(alphas, losses) if math.isfinite(v)), key=lambda p: abs(p[0]))[:points]
    if len(pairs) < 3:
        return math.nan, math.nan, math.nan
    # normal equations of v = x0 + x1 a + x2 a^2 / 2, scaled by the largest |a| for conditioning
    s = max(abs(a) for a, _ in pairs) or 1.0
    rows = [(1.0, a / s, (a / s) ** 2 / 2) for a, _ in pairs]
    ys = [v for _, v in pairs]
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    aty = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(3)]
    x = _solve3(ata, aty)
    if x is None:
        return math.nan, math.nan, math.nan
    return x[0], x[1] / s, x[2] / (s * s)


def vertex(slope: float, curvature: float) -> float | None:
    """Where the parabola is lowest, -slope / curvature; None when it does not curve up."""
    if not (math.isfinite(slope) and math.isfinite(curvature)) or curvature <= 0:
        return None
    return -slope / curvature


def _solve3(m: list[list[float]], y: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting on a 3x3 system."""
    a = [row[:] + [v] for row, v in zip(m, y)]
    for col in range(3):
        pivot = max(range(col, 3), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, 3):
            f = a[r][col] / a[col][col]
            for c in range(col, 4):
                a[r][c] -= f * a[col][c]
    x = [0.0, 0.0, 0.0]
    for r in (2, 1, 0):
        x[r] = (a[r][3] - sum(a[r][c] * x[c] for c in range(r + 1, 3))) / a[r][r]
    return x
