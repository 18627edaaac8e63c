"""Compact series: the points of a log as two typed arrays rather than a list of tuples.

A (step, value) tuple in a list costs about 110 bytes; an int64 step and a double value in two
arrays cost 16, which keeps a 10-million-row log in a few hundred MB. Steps stay int64 while every
step is an int that fits, and become a plain list otherwise (float epochs, huge ints), so that each
step keeps the type it was read with.

Readers first collect each column as (row number, value) and the step column as (row number,
step); `place` joins the two once the step column is known (JSON lines only learn it at the end).
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

from ..errors import UsageError

Step = int | float
Point = tuple[Step, float]
Steps = array | list  # array("q") of ints, or a list of ints and floats

# A log holds at most this many points over all its series: about 16 bytes each while read and
# roughly 100 more while one series is analysed, so 50 million points stay within a few GB.
MAX_POINTS = 50_000_000


def steps_of(items: Iterable[Step]) -> Steps:
    """int64 steps when every one fits, else a list that keeps floats and big ints as they are."""
    items = items if isinstance(items, (list, tuple, array)) else list(items)
    try:
        return array("q", items)
    except (TypeError, OverflowError):
        return list(items)


class Points(Sequence):
    """The points of one series, as steps and values side by side; reads like a list of (step, value)."""

    __slots__ = ("steps", "values")

    def __init__(self, steps: Steps | None = None, values: array | None = None) -> None:
        self.steps: Steps = array("q") if steps is None else steps
        self.values: array = array("d") if values is None else values

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(zip(self.steps[index], self.values[index]))
        return self.steps[index], self.values[index]

    def __iter__(self) -> Iterator[Point]:
        return zip(self.steps, self.values)

    def __repr__(self) -> str:
        return f"Points({len(self)} points)"

    def append(self, step: Step, value: float) -> None:
        self.steps = append_step(self.steps, step)
        self.values.append(value)

    def extend(self, other: Points) -> None:
        if isinstance(self.steps, array) and isinstance(other.steps, array):
            self.steps.extend(other.steps)
        else:
            self.steps = list(self.steps) + list(other.steps)
        self.values.extend(other.values)


def append_step(steps: Steps, step: Step) -> Steps:
    """`steps` with `step` appended: the int64 array turns into a list at the first float or huge int."""
    try:
        steps.append(step)
    except (TypeError, OverflowError):  # the first float or huge step: keep them as they are
        steps = list(steps)
        steps.append(step)
    return steps


class Column:
    """One numeric column while it is read: the row numbers it has a value in, and the values."""

    __slots__ = ("rows", "values")

    def __init__(self) -> None:
        self.rows = array("q")
        self.values = array("d")

    def __len__(self) -> int:
        return len(self.values)


class StepColumn:
    """The usable steps of the step column, by row number (rows without a usable step are absent)."""

    __slots__ = ("rows", "steps")

    def __init__(self) -> None:
        self.rows = array("q")
        self.steps: Steps = array("q")

    def add(self, row: int, step: Step) -> None:
        self.steps = append_step(self.steps, step)
        self.rows.append(row)

    def add_ints(self, first_row: int, steps: array) -> None:
        """Steps of consecutive rows from `first_row` on, every one an int."""
        self.steps.extend(steps)
        self.rows.extend(range(first_row, first_row + len(steps)))

    def __len__(self) -> int:
        return len(self.rows)


def place(column: Column, steps: StepColumn | None, rows: int) -> Points:
    """The column's points at their steps: without a step column the row number is the step; rows
    without a usable step are left out."""
    if steps is None:
        return Points(column.rows, column.values)
    by_row = steps.steps
    if len(steps) == rows:  # every row has a step: the row number indexes the steps directly
        if len(column) == rows:
            return Points(by_row, column.values)
        return Points(steps_of(map(by_row.__getitem__, column.rows)), column.values)
    kept_steps: list[Step] = []
    kept_values = array("d")
    at, count = 0, len(steps.rows)
    for row, value in zip(column.rows, column.values):
        at = bisect_left(steps.rows, row, at)
        if at < count and steps.rows[at] == row:
            kept_steps.append(by_row[at])
            kept_values.append(value)
    return Points(steps_of(kept_steps), kept_values)


def by_step(points: Sequence[Point]) -> tuple[Steps, array]:
    """(steps, values) sorted by step; of a step logged twice the later value wins."""
    if isinstance(points, Points):
        steps, values = points.steps, points.values
    else:
        steps, values = steps_of([s for s, _ in points]), array("d", [v for _, v in points])
    if all(map(operator.lt, steps, islice(steps, 1, None))):  # the usual case: already increasing
        return steps, values
    last = dict(zip(steps, range(len(steps))))  # step -> index of its last value
    order = sorted(last)
    return steps_of(order), array("d", map(values.__getitem__, map(last.__getitem__, order)))


class Budget:
    """Counts the points read from one log and stops the reading past MAX_POINTS."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit, self.used = MAX_POINTS if limit is None else limit, 0

    def spend(self, count: int) -> None:
        self.used += count
        if self.used > self.limit:
            raise UsageError(
                f"more than {self.limit:,} points, the limit for one log (about 16 bytes each in memory, and "
                "more while analysed): pass a shorter log, or keep every k-th row"
            )
