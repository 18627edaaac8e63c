"""read_curve: a training log on disk -> LossLog (series name -> [(step, value)]).

Formats, chosen by name and then by content: CSV/TSV with a header, JSON lines, a JSON array of
records, HF trainer_state.json, TensorBoard event files or a folder of them. Never imports torch,
tensorflow, tensorboard or numpy.
"""

from __future__ import annotations

import difflib
import struct
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .curve_tables import Point, Series, json_series, table_series
from .tfevents import is_event_file, read_event_file
from .tfrecord import masked_crc32c

SUPPORTED = (
    "CSV or TSV with a header row (.csv, .tsv), JSON lines (.jsonl), a JSON array of records (.json), "
    "HF trainer_state.json, TensorBoard event files (events.out.tfevents.*) or a folder holding them"
)
EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}
SNIFF_BYTES = 4096


@dataclass(frozen=True)
class LossLog:
    """The numeric series of one training log, in the order the file holds them."""

    series: dict[str, list[Point]]
    source: str
    format: str  # csv, tsv, jsonl, json, trainer_state or tfevents
    notes: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        return list(self.series)

    def points(self, name: str) -> list[Point]:
        """The series sorted by step; of a step logged twice the later value wins (a resumed run
        rewrites the steps after its checkpoint)."""
        if name not in self.series:
            close = difflib.get_close_matches(name, self.names, n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise UsageError(f"no series {name!r} in {self.source}.{hint} Series found: {', '.join(self.names)}")
        by_step: dict[int | float, float] = {}
        for step, value in self.series[name]:
            by_step[step] = value
        return sorted(by_step.items())


def read_curve(path: Path, check_crc: bool = True) -> LossLog:
    """Read a loss log; `check_crc=False` skips the per-record data checksum of event files."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder. Pass a training log: {SUPPORTED}.")
    fmt = detect_format(path)
    if fmt == "tfevents":
        series, seen, notes = _read_event_files(path, check_crc)
    elif fmt in ("csv", "tsv"):
        series, seen, notes = table_series(_text(path), "," if fmt == "csv" else "\t")
    else:
        series, seen, fmt, notes = json_series(_text(path))
    if not series:
        columns = ", ".join(seen[:20]) + (", ..." if len(seen) > 20 else "") if seen else "none"
        problems = f" ({'; '.join(notes)})" if notes else ""
        raise UsageError(
            f"{path}: no numeric series found{problems}. Columns seen: {columns}. "
            "A loss log needs a column or field of numbers such as `loss` or `val_loss`."
        )
    return LossLog(series=series, source=str(path), format=fmt, notes=tuple(notes))


def detect_format(path: Path) -> str:
    """csv, tsv, jsonl, json or tfevents, from the name first and the first bytes second."""
    if path.is_dir() or is_event_file(path):
        return "tfevents"
    if path.suffix.lower() in EXTENSIONS:
        return EXTENSIONS[path.suffix.lower()]
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    if len(head) >= 12 and masked_crc32c(head[:8]) == struct.unpack_from("<I", head, 8)[0]:
        return "tfevents"  # a TFRecord length with a valid checksum
    binary = UsageError(f"{path}: unknown log format (binary data). Supported: {SUPPORTED}.")
    if b"\0" in head:
        raise binary
    try:
        text = head.decode("utf-8-sig").lstrip()
    except UnicodeDecodeError as exc:  # a character cut by the 4 KB window is fine; other bytes are not
        if exc.start < len(head) - 3:
            raise binary from exc
        text = head[: exc.start].decode("utf-8-sig").lstrip()
    first_line = text.split("\n", 1)[0]
    if text[:1] in ("{", "["):
        return "json"
    if "\t" in first_line:
        return "tsv"
    if "," in first_line:
        return "csv"
    raise UsageError(f"{path}: unknown log format. Supported: {SUPPORTED}.")


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not a UTF-8 text file (byte {exc.start}). Supported: {SUPPORTED}.") from exc


def _read_event_files(path: Path, check_crc: bool) -> tuple[Series, list[str], list[str]]:
    """Merge every event file by tag; files in sub-folders (Keras' train/ and validation/, one
    folder per run) prefix their tags with the folder so that runs do not mix."""
    files = [path] if path.is_file() else sorted(
        (p for p in path.rglob("*tfevents*") if p.is_file()), key=lambda p: _event_order(p, path)
    )
    if not files:
        raise UsageError(
            f"{path}: no TensorBoard event files (events.out.tfevents.*) in this folder. Supported: {SUPPORTED}."
        )
    series: Series = {}
    notes: list[str] = []
    for file in files:
        tags, file_notes = read_event_file(file, check_crc)
        notes += [f"{file.name}: {note}" for note in file_notes]
        prefix = "" if file == path else file.parent.relative_to(path).as_posix()
        for tag, points in tags.items():
            series.setdefault(tag if prefix in ("", ".") else f"{prefix}/{tag}", []).extend(points)
    return series, list(series), notes


def _event_order(file: Path, root: Path) -> tuple[str, int, str]:
    """Folder, then the writer's start time in the name (events.out.tfevents.<unix time>.<host>...)."""
    parts = file.name.split(".")
    started = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else 0
    return file.parent.relative_to(root).as_posix(), started, file.name
