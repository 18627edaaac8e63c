"""Series from CSV/TSV with a header, read as a stream of lines in batches of rows.

Every numeric column is a series; the step comes from the first step-like column found
(STEP_KEYS order) or, without one, from the row number. Non-finite values are kept as floats,
because where a loss turns NaN matters. A column is a series only when every cell it has is a
number (empty and "n/a"-like cells mean "not logged here").

Rows are gathered into batches of about BATCH_CHARS characters of text and turned
into columns with C-level loops (zip, map(float)); a batch with an odd cell falls back to a loop
over its cells, so the common case costs well under a microsecond a row.
"""

from __future__ import annotations

import csv
import math
from array import array
from collections.abc import Iterable
from itertools import compress

from ..errors import UsageError
from .curve_points import Budget, Column, Points, StepColumn, place
from .curve_text import Lines

Series = dict[str, Points]

# `epoch` comes last: W&B and Lightning log it next to a finer counter, and reading it as the step
# would fold every batch of an epoch onto one step.
STEP_KEYS = ("step", "global_step", "trainer/global_step", "iteration", "iter", "_step", "epoch")
MISSING = {"", "none", "null", "na", "n/a", "nil", "-"}  # cells that mean "not logged here"
NON_FINITE = {"nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
BATCH_CHARS = 256 << 10  # a batch of rows holds about this much text: bounded memory whatever the rows hold


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def step_value(value: object) -> int | float | None:
    """A step from a cell or a JSON value: ints stay ints, non-finite or non-numeric steps are None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:  # also a string of more digits than int() converts: then float() says inf
            value = _number(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value
    return None


def step_key(names: Iterable[str]) -> str | None:
    lowered = {name.strip().lower(): name for name in names}
    return next((lowered[key] for key in STEP_KEYS if key in lowered), None)


def table_series(lines: Lines, delimiter: str, budget: Budget) -> tuple[Series, list[str], list[str]]:
    """(series, column names, notes) from the lines of a CSV or TSV with a header row."""
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        return _read_table(reader, lines, budget)
    except csv.Error as exc:
        raise UsageError(f"line {reader.line_num} is not valid {'CSV' if delimiter == ',' else 'TSV'} ({exc})"
                         + (_FIELD_HINT if "field larger" in str(exc) else "")) from None


_FIELD_HINT = ": a loss log's cells are numbers or short names; check the delimiter and the quotes"


def _read_table(reader, lines: Lines, budget: Budget) -> tuple[Series, list[str], list[str]]:
    header = next((row for row in reader if "".join(row).strip()), None)
    if header is None:
        return {}, [], []
    header = [cell.strip() for cell in header]
    if all(_number(cell) is not None for cell in header):
        raise UsageError(
            f"the first row ({', '.join(header[:6])}) holds numbers, not column names: "
            "add a header row such as `step,loss,val_loss`"
        )
    step_name = step_key(header)
    step_col = header.index(step_name) if step_name else None
    table = _Table(header, step_col, budget)
    batch: list[list[str]] = []
    append, lines.chars = batch.append, 0
    for row in reader:
        append(row)
        if lines.chars > BATCH_CHARS:
            table.add(batch)
            batch, lines.chars = [], 0
            append = batch.append
    table.add(batch)
    notes = []
    if table.steps is not None and len(table.steps) < table.rows:
        notes.append(f"{table.rows - len(table.steps)} row(s) have no usable `{step_name}` value and were skipped")
    return table.series(), header, notes


class _Table:
    """The columns of a table while its rows arrive in batches."""

    def __init__(self, header: list[str], step_col: int | None, budget: Budget) -> None:
        self.header, self.step_col, self.budget = header, step_col, budget
        self.steps = StepColumn() if step_col is not None else None
        # numeric so far: a column leaves this dict at its first cell that is not a number
        self.columns = {col: Column() for col, name in enumerate(header) if name and col != step_col}
        self.rows = 0

    def add(self, batch: list[list[str]]) -> None:
        rows = list(compress(batch, map(str.strip, map("".join, batch))))  # blank lines are not rows
        if not rows:
            return
        width = len(self.header)
        if min(map(len, rows)) < width:
            rows = [row + [""] * (width - len(row)) if len(row) < width else row for row in rows]
        cells = list(zip(*rows))
        first = self.rows
        self.rows += len(rows)
        if self.steps is not None:
            _add_steps(self.steps, first, cells[self.step_col])
        before = sum(len(column) for column in self.columns.values())
        for col in [col for col, column in self.columns.items() if not _add_values(column, first, cells[col])]:
            del self.columns[col]  # a text column: not a series
        self.budget.spend(sum(len(column) for column in self.columns.values()) - before)

    def series(self) -> Series:
        series: Series = {}
        for col, column in self.columns.items():
            if len(column):  # a later column of the same name replaces an earlier one, as a dict does
                series[self.header[col]] = place(column, self.steps, self.rows)
        return {name: points for name, points in series.items() if len(points)}


def _add_steps(steps: StepColumn, first: int, cells: tuple[str, ...]) -> None:
    try:
        ints = array("q", map(int, cells))  # the usual case: every step an integer
    except (ValueError, OverflowError):
        for row, cell in enumerate(cells, first):
            step = step_value(cell)
            if step is not None:
                steps.add(row, step)
        return
    steps.add_ints(first, ints)


def _add_values(column: Column, first: int, cells: tuple[str, ...]) -> bool:
    """Append the batch's numbers to `column`; False when a cell is neither a number nor missing."""
    rows: Iterable[int] = range(first, first + len(cells))
    if not all(cells):  # sparse columns (a validation loss every 100 rows): keep the non-empty cells
        rows, cells = list(compress(rows, cells)), list(compress(cells, cells))
    try:
        values = array("d", map(float, cells))
    except ValueError:
        return _add_values_one_by_one(column, rows, cells)
    column.rows.extend(rows)
    column.values.extend(values)
    return True


def _add_values_one_by_one(column: Column, rows: Iterable[int], cells: Iterable[str]) -> bool:
    for row, cell in zip(rows, cells):
        value = _number(cell)
        if value is None:
            if cell.strip().lower() in MISSING:
                continue
            return False
        column.rows.append(row)
        column.values.append(value)
    return True
