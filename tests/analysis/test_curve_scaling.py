"""The O(n log n) pieces of the analysis give exactly what their plain definitions give, and a
long log with an evaluation at every step is analysed in seconds (it took minutes: one sort per
validation point). Timings against the row count: benchmarks/curve_scale.py."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from mldebug_mcp.analysis import curve_window
from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_spikes import RECOVERY_CONFIRM, _Recovery
from mldebug_mcp.analysis.curve_stats import (
    SELECT_MIN,
    level_near,
    levels_near,
    median,
    sliding_medians,
)
from mldebug_mcp.analysis.curve_window import MedianWindow

from .curves import log_of
from .safety import deadline


def plain_median(xs) -> float:
    ordered = sorted(xs)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


@pytest.mark.parametrize("seed", range(40))
def test_sliding_medians_equal_the_median_of_each_window(seed):
    rng = random.Random(seed)
    values = [round(rng.gauss(0, 1), rng.choice([0, 2, 6])) for _ in range(rng.randint(1, 120))]
    n = len(values)
    lo = rng.randint(-30, 0)
    hi = rng.randint(lo + 1, 30)  # a trailing window when hi <= 0, a leading one when lo == 0
    if 1 - hi > n - 1:
        hi = 1
    start = rng.randint(max(0, 1 - hi), n - 1)  # from where the windows are not empty
    expected = [plain_median(values[max(0, i + lo) : min(n, i + hi)]) for i in range(start, n)]
    assert list(sliding_medians(values, lo, hi, start)) == expected


@pytest.mark.parametrize("kind", ["random", "sorted", "periodic", "coarse", "signed zeros", "odd length"])
def test_the_median_of_a_long_series_is_selected_exactly(kind):
    rng = random.Random(kind)
    n = SELECT_MIN + (1 if kind == "odd length" else 7)
    values = {
        "random": lambda: [rng.random() for _ in range(n)],
        "sorted": lambda: sorted(rng.random() for _ in range(n)),
        "periodic": lambda: [float(i % 97) for i in range(n)],
        "coarse": lambda: [round(rng.gauss(0, 1), 1) for _ in range(n)],
        "signed zeros": lambda: [0.0 if i % 3 else -0.0 for i in range(n)],
        "odd length": lambda: [rng.expovariate(1.0) for _ in range(n)],
    }[kind]()
    got, expected = median(values), plain_median(values)
    assert got == expected and math.copysign(1, got) == math.copysign(1, expected)


@pytest.mark.parametrize("seed", range(30))
def test_a_median_window_equals_the_median_of_what_it_holds(seed, monkeypatch):
    monkeypatch.setattr(curve_window, "BLOCK", 4)  # small blocks: splits, emptied blocks, copies across blocks
    rng = random.Random(seed)
    pool = [round(rng.gauss(0, 1), rng.choice([0, 1, 3])) for _ in range(400)]
    lo = hi = 0
    window = MedianWindow()
    for _ in range(60):
        first = min(lo + rng.randint(0, 15), 399)
        end = min(400, max(hi, first + 1) + rng.randint(0, 20))
        if first >= hi:
            window = MedianWindow(sorted(pool[first:end]))
        else:
            window.add(pool[hi:end])
            window.remove(pool[lo:first])
        lo, hi = first, end
        assert window.median() == statistics.median(pool[lo:hi])


@pytest.mark.parametrize("seed", range(10))
def test_levels_near_equals_level_near_at_each_step(seed):
    rng = random.Random(seed)
    steps = sorted(rng.sample(range(5000), 800))
    values = [round(rng.gauss(1, 0.3), 2) for _ in steps]
    at = sorted(rng.choice([rng.randint(-50, 5050), rng.choice(steps)]) for _ in range(rng.randint(1, 300)))
    half = rng.choice([2, 16, 200, 900])
    assert levels_near(steps, values, at, half) == [level_near(steps, values, s, half) for s in at]


@pytest.mark.parametrize("seed", range(20))
def test_a_recovery_is_found_where_a_scan_finds_it(seed):
    rng = random.Random(seed)
    z = [rng.gauss(0, 1) + (3 if rng.random() < 0.3 else 0) for _ in range(rng.randint(70, 600))]
    recovery = _Recovery(z)
    for _ in range(40):
        start, band = rng.randrange(1, len(z)), rng.uniform(-1.5, 3)
        scan = next((j for j in range(start, len(z)) if plain_median(z[j : j + RECOVERY_CONFIRM]) <= band), None)
        assert recovery.first_back(start, band) == scan


def test_a_long_log_with_an_evaluation_at_every_step_takes_seconds():
    rng = random.Random(0)
    n = 200_000
    loss = [(t, (0.4 + 2 * math.exp(-t / 60_000)) * math.exp(rng.gauss(0, 0.08))) for t in range(n)]
    val = [(t, 0.45 + 2 * math.exp(-t / 60_000)) for t in range(n)]
    with deadline(60):  # about 5 s here; one sort per validation point took minutes
        report = analyze_curve(log_of(loss=loss, val_loss=val))
    assert report.val_series == "val_loss" and report.series[0].points == n
