"""A long log is thinned before drawing, keeping what the eye must see: spikes, dips and NaN."""

from __future__ import annotations

import math
from array import array

from mldebug_mcp.analysis.curve_plot import thinned


def test_a_short_series_is_drawn_whole():
    assert thinned([1, 2, 3], array("d", [3.0, 2.0, 1.0])) == [(1, 3.0), (2, 2.0), (3, 1.0)]


def test_a_long_series_keeps_its_spike_dip_and_nan_within_the_bound():
    n = 1_000_000
    values = array("d", (2.0 - i / n for i in range(n)))
    values[123_457] = 50.0      # a one-step spike
    values[777_777] = 0.001     # a one-step dip
    values[900_001] = math.nan  # the NaN onset the plot marks
    kept = thinned(range(n), values, most=3000)
    assert len(kept) <= 2 * 3000  # about `most` (a run adds at most four points), never the million
    steps = {s for s, _ in kept}
    assert {0, 123_457, 777_777, 900_001} <= steps
    assert [s for s, _ in kept] == sorted(steps)  # still in step order
