"""Synthetic loss curves for the classifier tests: pure Python, fixed seeds, one shape each."""

from __future__ import annotations

import math
import os
import random

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import LossLog

N = 1000


def noisy(shape, n: int = N, noise: float = 0.08, seed: int = 0) -> list[tuple[int, float]]:
    """shape(t) times lognormal minibatch noise of relative size `noise`."""
    rng = random.Random(seed)
    return [(t, shape(t) * math.exp(rng.gauss(0.0, noise))) for t in range(n)]


def healthy_shape(t: float) -> float:
    return 0.4 + 2.0 * math.exp(-t / 350)


def healthy(n: int = N, noise: float = 0.08, seed: int = 0) -> list[tuple[int, float]]:
    return noisy(healthy_shape, n, noise, seed)


def log_of(fmt: str = "synthetic", **series: list[tuple[int | float, float]]) -> LossLog:
    return LossLog(series={name.replace("__", "/"): points for name, points in series.items()},
                   source="synthetic.csv", format=fmt)


SEEDS = range(int(os.environ.get("CURVE_SEEDS", "4")))  # CURVE_SEEDS=40 for a wider check


def observations(loss, val=None, **kwargs) -> list[str]:
    series = {"loss": loss} | ({"val_loss": val} if val else {})
    return analyze_curve(log_of(**series), **kwargs).observations


def finding(report, key):
    return next(f for f in report.findings if f.observation == key)
