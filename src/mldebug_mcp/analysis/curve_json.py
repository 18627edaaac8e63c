"""Series from JSON: JSON lines read record by record, or one document (a JSON array of records,
HF trainer_state.json) read whole.

Every numeric field is a series; the step comes from the first step-like field found in any
record (STEP_KEYS order) or, without one, from the record's index. A JSON-lines log learns its
step field only at the end, so each field is kept by record number and placed at its step then.
"""

from __future__ import annotations

import json
import sys
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from ..errors import UsageError
from .curve_points import Budget, Column, StepColumn, place
from .curve_tables import NON_FINITE, STEP_KEYS, Series, step_key, step_value

RECORD_EXAMPLE = '{"step": 3, "loss": 1.2}'


def parse_json(text: str, where: str) -> object:
    """json.loads, with the errors it raises besides JSONDecodeError turned into UsageError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise UsageError(f"{where} nests arrays or objects too deeply to read: a loss log's records are "
                         f"flat objects such as {RECORD_EXAMPLE}") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer of more digits than int() converts
        raise UsageError(f"{where} is not usable JSON ({exc})") from None


def document_series(text: str, budget: Budget) -> tuple[Series, list[str], str, list[str]]:
    """(series, field names, format, notes) from a whole JSON document, or from JSON lines when the
    text is not one document."""
    try:
        document = parse_json(text, "the JSON document")
    except json.JSONDecodeError:
        return lines_series(text.splitlines(), budget)
    if isinstance(document, list):
        records, fmt = document, "json"
    elif isinstance(document, dict) and isinstance(document.get("log_history"), list):
        records, fmt = document["log_history"], "trainer_state"
    elif isinstance(document, dict):
        records, fmt = [document], "jsonl"
    else:
        raise UsageError(
            "the JSON holds a single value, not records: write one object per line "
            f"(`{RECORD_EXAMPLE}`) or an array of such objects"
        )
    sink = Records(budget)
    for record in records:
        sink.add(record)
    series, fields, notes = sink.finish()
    return series, fields, fmt, notes


def lines_series(lines: Iterable[str], budget: Budget) -> tuple[Series, list[str], str, list[str]]:
    """(series, field names, "jsonl", notes) from JSON lines, one record at a time."""
    notes: list[str] = []
    sink = Records(budget)
    for record in _records(lines, notes):
        sink.add(record)
    series, fields, more_notes = sink.finish()
    return series, fields, "jsonl", notes + more_notes


def _records(lines: Iterable[str], notes: list[str]) -> Iterator[object]:
    """The JSON value of each non-blank line. A last line that is not JSON is cut short (the run is
    still writing) and skipped with a note; any other line that is not JSON is an error."""
    broken: tuple[int, json.JSONDecodeError] | None = None
    seen = 0
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        if broken:
            raise _not_json(*broken)
        try:
            record = parse_json(line, f"line {number}")
        except json.JSONDecodeError as exc:
            if not seen:
                raise _not_json(number, exc) from None
            broken = number, exc
            continue
        seen += 1
        yield record
    if broken:
        notes.append(f"line {broken[0]} is cut short (the run may still be writing) and was skipped")


def _not_json(number: int, exc: json.JSONDecodeError) -> UsageError:
    return UsageError(
        f"line {number} is not JSON ({exc.msg}): a JSON-lines log holds one object per line, such as {RECORD_EXAMPLE}"
    )


def _json_number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an integer beyond the float range: as float("1e999") reads it
            return float("inf") if value > 0 else float("-inf")
    if isinstance(value, str) and value.strip().lower() in NON_FINITE:
        return float(value.strip().lower().replace("infinity", "inf"))
    return None


class Records:
    """Fields of records, kept by record number until the step field is known."""

    CHECK_EVERY = 65_536  # records between two checks of the point budget

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.fields: dict[str, tuple[Column | None, StepColumn | None]] = {}  # every field, in order
        self.numeric: dict[str, Column] = {}  # numeric fields, in the order of their first number
        self.count = 0

    def add(self, record: object) -> None:
        if not isinstance(record, dict):
            raise UsageError(
                f"record {self.count + 1} is a {type(record).__name__}, not an object of fields: "
                f"each record should look like {RECORD_EXAMPLE}"
            )
        row = self.count
        self.count += 1
        for key, value in record.items():
            slot = self.fields.get(key)
            if slot is None:
                slot = self.fields[key] = (None, StepColumn() if key.strip().lower() in STEP_KEYS else None)
            column, steps = slot
            if steps is not None:
                step = step_value(value)
                if step is not None:
                    steps.add(row, step)
            number = _json_number(value)
            if number is None:
                continue
            if column is None:
                column = self.numeric[key] = Column()
                self.fields[key] = (column, steps)
            column.rows.append(row)
            column.values.append(number)
        if not self.count % self.CHECK_EVERY:
            self._check_budget()

    def _check_budget(self) -> None:
        self.budget.spend(sum(map(len, self.numeric.values())) - self.budget.used)

    def finish(self) -> tuple[Series, list[str], list[str]]:
        """(series, field names, notes): each numeric field but the step at its steps."""
        self._check_budget()
        fields = list(self.fields)
        key = step_key(fields)
        steps = self.fields[key][1] if key else None
        placed = {name: place(column, steps, self.count) for name, column in self.numeric.items() if name != key}
        order = {name: _first_placed_row(column, steps, self.count) for name, column in self.numeric.items() if name in placed}
        series = {name: placed[name] for name in sorted(placed, key=order.__getitem__) if len(placed[name])}
        notes = []
        if steps is not None and len(steps) < self.count:
            notes.append(f"{self.count - len(steps)} record(s) have no usable `{key}` and were skipped")
        return series, fields, notes


def _first_placed_row(column: Column, steps: StepColumn | None, records: int) -> int:
    """The first record in which the field has a value and a step: series are ordered by it, as
    they first appear among the records that are read (ties keep the order of first appearance)."""
    if steps is None or len(steps) == records:
        return column.rows[0] if len(column) else sys.maxsize
    for row in column.rows:
        at = bisect_left(steps.rows, row)
        if at < len(steps.rows) and steps.rows[at] == row:
            return row
    return sys.maxsize
