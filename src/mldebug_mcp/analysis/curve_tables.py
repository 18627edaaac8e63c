"""Series from tabular logs: CSV/TSV with a header, JSON lines, JSON arrays and HF trainer_state.json.

Every numeric column or field is a series; the step comes from the first step-like column found
(STEP_KEYS order) or, without one, from the row number. Non-finite values are kept as floats,
because where a loss turns NaN matters.
"""

from __future__ import annotations

import csv
import io
import json
import math

from ..errors import UsageError

Point = tuple[int | float, float]
Series = dict[str, list[Point]]

# `epoch` comes last: W&B and Lightning log it next to a finer counter, and reading it as the step
# would fold every batch of an epoch onto one step.
STEP_KEYS = ("step", "global_step", "trainer/global_step", "iteration", "iter", "_step", "epoch")
MISSING = {"", "none", "null", "na", "n/a", "nil", "-"}  # cells that mean "not logged here"
NON_FINITE = {"nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def _step(value: object) -> int | float | None:
    """A step from a cell or a JSON value: ints stay ints, non-finite or non-numeric steps are None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            value = _number(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value
    return None


def _step_key(names: list[str]) -> str | None:
    lowered = {name.strip().lower(): name for name in names}
    return next((lowered[key] for key in STEP_KEYS if key in lowered), None)


def table_series(text: str, delimiter: str) -> tuple[Series, list[str], list[str]]:
    """(series, column names, notes) from CSV or TSV text with a header row."""
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in row)]
    if not rows:
        return {}, [], []
    header = [cell.strip() for cell in rows[0]]
    if all(_number(cell) is not None for cell in header):
        raise UsageError(
            f"the first row ({', '.join(header[:6])}) holds numbers, not column names: "
            "add a header row such as `step,loss,val_loss`"
        )
    step_name = _step_key(header)
    step_col = header.index(step_name) if step_name else None
    steps: list[int | float | None] = []
    for number, row in enumerate(rows[1:]):
        steps.append(number if step_col is None else _step(row[step_col].strip() if step_col < len(row) else ""))
    series: Series = {}
    for col, name in enumerate(header):
        if col == step_col or not name:
            continue
        cells = [(step, row[col].strip() if col < len(row) else "") for step, row in zip(steps, rows[1:])]
        present = [(step, cell) for step, cell in cells if cell.lower() not in MISSING]
        values = [(step, _number(cell)) for step, cell in present]
        if values and all(value is not None for _, value in values):
            series[name] = [(step, value) for step, value in values if step is not None]
    notes = []
    unplaced = sum(step is None for step in steps)
    if unplaced:
        notes.append(f"{unplaced} row(s) have no usable `{step_name}` value and were skipped")
    return {name: points for name, points in series.items() if points}, header, notes


def json_series(text: str) -> tuple[Series, list[str], str, list[str]]:
    """(series, field names, format, notes) from JSON lines, a JSON array or a trainer_state.json."""
    notes: list[str] = []
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        records, fmt = _json_lines(text, notes), "jsonl"
    else:
        if isinstance(document, list):
            records, fmt = document, "json"
        elif isinstance(document, dict) and isinstance(document.get("log_history"), list):
            records, fmt = document["log_history"], "trainer_state"
        elif isinstance(document, dict):
            records, fmt = [document], "jsonl"
        else:
            raise UsageError(
                "the JSON holds a single value, not records: write one object per line "
                '(`{"step": 3, "loss": 1.2}`) or an array of such objects'
            )
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise UsageError(
                f"record {index + 1} is a {type(record).__name__}, not an object of fields: "
                'each record should look like {"step": 3, "loss": 1.2}'
            )
    series, fields = _records_series(records, notes)
    return series, fields, fmt, notes


def _json_lines(text: str, notes: list[str]) -> list[object]:
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    records = []
    for position, (number, line) in enumerate(lines):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if position == len(lines) - 1 and position > 0:
                notes.append(f"line {number} is cut short (the run may still be writing) and was skipped")
                break
            raise UsageError(
                f"line {number} is not JSON ({exc.msg}): a JSON-lines log holds one object per line, "
                'such as {"step": 3, "loss": 1.2}'
            ) from exc
    return records


def _json_number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value.strip().lower() in NON_FINITE:
        return float(value.strip().lower().replace("infinity", "inf"))
    return None


def _records_series(records: list[dict], notes: list[str]) -> tuple[Series, list[str]]:
    fields = list(dict.fromkeys(key for record in records for key in record))
    step_key = _step_key(fields)
    series: Series = {}
    unplaced = 0
    for index, record in enumerate(records):
        step = _step(record.get(step_key)) if step_key else index
        if step is None:
            unplaced += 1
            continue
        for key, value in record.items():
            number = _json_number(value)
            if key != step_key and number is not None:
                series.setdefault(key, []).append((step, number))
    if unplaced:
        notes.append(f"{unplaced} record(s) have no usable `{step_key}` and were skipped")
    return series, fields
