"""read_runs_table: a runs table on disk (one row per run) -> RawTable of cells by column name.

CSV or TSV with a header (a W&B or MLflow export included), JSON lines, or a JSON array of
records; nested objects ({"config": {"lr": 0.1}}) are flattened to dotted names (config.lr).
The file is opened through safe_read.open_regular (a regular file, inside `roots` when given),
detected with curve_io.sniff_format, and read with the curve reader's bounded lines.

Limits (the error names the limit and what to pass instead):
    MAX_TABLE_BYTES  64 MiB   the file
    MAX_RUNS         100,000  rows
    MAX_COLUMNS      2,000    distinct column names
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..safe_read import UnreadableFile, open_regular
from .curve_io import SNIFF_BYTES, sniff_format
from .curve_json import parse_json
from .curve_text import Lines

MAX_TABLE_BYTES = 64 << 20
MAX_RUNS = 100_000
MAX_COLUMNS = 2_000
Cell = str | float | int | bool | None


@dataclass
class RawTable:
    """The cells of a runs table: column names in first-seen order, one dict per row."""

    source: str
    format: str
    columns: list[str] = field(default_factory=list)
    rows: list[dict[str, Cell]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    measured: list[str] = field(default_factory=list)  # columns known to be logged series (a folder's runs)


def read_runs_table(path: Path, roots: tuple[Path, ...] | None = None) -> RawTable:
    """Read a runs table file; UsageError naming the problem and the fix."""
    try:
        handle = open_regular(path, roots)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_TABLE_BYTES:
            raise UnreadableFile(f"{path} is {size:,} bytes, over the {MAX_TABLE_BYTES:,}-byte (64 MiB) limit for a "
                                 "runs table: keep one row per run and only the columns compared")
        fmt = sniff_format(path, handle.read(SNIFF_BYTES))
        handle.seek(0)
        if fmt == "tfevents":
            raise UsageError(f"{path} is one TensorBoard event file, one run: a sweep compares several. Pass the "
                             "folder that holds the runs (one sub-folder each).")
        table = RawTable(source=str(path), format=fmt)
        if fmt in ("csv", "tsv"):
            _read_delimited(Lines(handle), "," if fmt == "csv" else "\t", table)
        else:
            try:
                text = handle.read(MAX_TABLE_BYTES + 1).decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise UsageError(f"{path}: not UTF-8 text (byte {exc.start}); save the table as UTF-8") from None
            _read_json(text, table, path)
    if not table.rows:
        raise UsageError(f"{path}: no runs in the table. A runs table has a header row and one row per run, with "
                         "setting columns, a seed column and metric columns.")
    return table


def _read_delimited(lines: Lines, delimiter: str, table: RawTable) -> None:
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = next((row for row in reader if "".join(row).strip()), None)
        if header is None:
            return
        table.columns = _unique([cell.strip() for cell in header])
        _check_columns(table.columns)
        for row in reader:
            if not "".join(row).strip():
                continue
            if len(row) != len(table.columns):
                table.notes.append(f"line {reader.line_num} has {len(row)} cells for {len(table.columns)} columns; "
                                   "missing cells read as empty, extra cells ignored")
            table.rows.append(dict(zip(table.columns, (cell.strip() for cell in row))))
            _check_rows(table)
    except csv.Error as exc:
        raise UsageError(f"line {reader.line_num} is not valid {'CSV' if delimiter == ',' else 'TSV'} ({exc})") from None


def _read_json(text: str, table: RawTable, path: Path) -> None:
    try:
        document = parse_json(text, "the JSON document")
        records = document if isinstance(document, list) else [document]
    except json.JSONDecodeError:
        records = [parse_json(line, f"line {number}") for number, line in enumerate(text.splitlines(), 1)
                   if line.strip()]
    if len(records) == 1 and isinstance(records[0], dict) and isinstance(records[0].get("log_history"), list):
        raise UsageError(f"{path} is a trainer_state.json, one run: a sweep compares several. Pass the folder that "
                         "holds the runs' output folders (each with its trainer_state.json).")
    seen: dict[str, None] = {}
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise UsageError(f"record {number} is not an object: a runs table in JSON holds one object per run, "
                             'such as {"arm": "baseline", "seed": 1, "val_acc": 0.71}')
        row = dict(_flatten(record))
        seen.update(dict.fromkeys(row))
        table.rows.append(row)
        _check_rows(table)
        if len(seen) > MAX_COLUMNS:
            _check_columns(list(seen))
    table.columns = list(seen)


def _flatten(record: dict, prefix: str = "", depth: int = 0):
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and depth < 4:
            yield from _flatten(value, name + ".", depth + 1)
        elif isinstance(value, list | dict):
            continue  # a list (tags, a history) is no setting and no single metric
        else:
            yield name, value


def _unique(names: list[str]) -> list[str]:
    """Header names made unique (a repeated name gets .2, .3): a W&B export may repeat a column."""
    counts: dict[str, int] = {}
    out = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        out.append(name if counts[name] == 1 else f"{name}.{counts[name]}")
    return out


def _check_columns(columns: list[str]) -> None:
    if len(columns) > MAX_COLUMNS:
        raise UsageError(f"the table has more than {MAX_COLUMNS:,} columns, the limit for a runs table: export only "
                         "the settings, the seed and the metrics compared")


def _check_rows(table: RawTable) -> None:
    if len(table.rows) > MAX_RUNS:
        raise UsageError(f"the table has more than {MAX_RUNS:,} rows, the limit for a runs table (one row per run): "
                         "pass one sweep's runs, or filter the export")
