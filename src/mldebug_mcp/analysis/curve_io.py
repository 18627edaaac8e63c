"""read_curve: a training log on disk -> LossLog (series name -> points).

Formats, chosen by name and then by content: CSV/TSV with a header, JSON lines, a JSON array of
records, HF trainer_state.json, TensorBoard event files or a folder of them. Never imports torch,
tensorflow, tensorboard or numpy.

Every file is opened through safe_read.open_regular: only regular files (a FIFO would block, a
device never ends), and with `roots` only files whose real path lies inside them. CSV/TSV, JSON
lines and event files are streamed; a JSON document is read whole, so it has its own limit.

Limits (each error names the limit and what to pass instead):
    MAX_LOG_BYTES        1 GiB    a log file, or all the event files of a folder together
    MAX_DOCUMENT_BYTES   256 MiB  a JSON array or trainer_state.json (read whole)
    MAX_LINE_CHARS       1 MiB    one line of CSV/TSV or JSON lines
    MAX_POINTS           50 M     points over all the series of a log (curve_points)
    CSV cells            128 KiB  Python's csv field limit (131,072 characters)
"""

from __future__ import annotations

import difflib
import os
import struct
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ..errors import UsageError
from ..safe_read import UnreadableFile, open_regular
from .curve_events import naming, read_event_folder, why
from .curve_json import document_series, lines_series
from .curve_points import MAX_POINTS, Budget, Point, Points, Steps, by_step
from .curve_tables import table_series
from .curve_text import MAX_LINE_CHARS, Lines
from .tfevents import is_event_file, read_event_file
from .tfrecord import masked_crc32c

SUPPORTED = (
    "CSV or TSV with a header row (.csv, .tsv), JSON lines (.jsonl), a JSON array of records (.json), "
    "HF trainer_state.json, TensorBoard event files (events.out.tfevents.*) or a folder holding them"
)
EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}
SNIFF_BYTES = 4096
MAX_LOG_BYTES = 1 << 30
MAX_DOCUMENT_BYTES = 256 << 20
__all__ = ["MAX_DOCUMENT_BYTES", "MAX_LINE_CHARS", "MAX_LOG_BYTES", "MAX_POINTS", "SUPPORTED", "LossLog",
           "detect_format", "read_curve"]


@dataclass(frozen=True)
class LossLog:
    """The numeric series of one training log, in the order the file holds them."""

    series: dict[str, list[Point] | Points]
    source: str
    format: str  # csv, tsv, jsonl, json, trainer_state or tfevents
    notes: tuple[str, ...] = ()
    run: str | None = None  # of a folder of event files: the run read ("." for the folder itself)
    other_runs: tuple[str, ...] = ()  # and the runs it also holds, left out
    _sorted: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def names(self) -> list[str]:
        return list(self.series)

    def columns(self, name: str) -> tuple[Steps, array]:
        """(steps, values) of a series sorted by step; of a step logged twice the later value wins
        (a resumed run rewrites the steps after its checkpoint). Computed once per series."""
        if name not in self.series:
            close = difflib.get_close_matches(name, self.names, n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise UsageError(f"no series {name!r} in {self.source}.{hint} Series found: {', '.join(self.names)}")
        if name not in self._sorted:
            self._sorted[name] = by_step(self.series[name])
        return self._sorted[name]

    def count(self, name: str) -> int:
        return len(self.columns(name)[1])

    def points(self, name: str) -> list[Point]:
        """The series sorted by step as (step, value) pairs (see columns)."""
        steps, values = self.columns(name)
        return list(zip(steps, values))


def read_curve(path: Path, check_crc: bool | None = None, *, roots: tuple[Path, ...] | None = None,
               run: str | None = None) -> LossLog:
    """Read a loss log. Event files: every record length's checksum is verified; `check_crc`
    True or False turns the data checksum on or off, None checks it when it is cheap
    (google-crc32c installed; see tfrecord).

    A folder of event files holding several runs is read one run at a time: `run` (its folder
    relative to `path`), or the most recent (see curve_runs); LossLog.run says which.
    With `roots` (the server's allowed directories) every file read must really lie inside one:
    a symlink leading elsewhere is refused, or skipped with a note inside a folder."""
    path = Path(path)
    budget = Budget()
    chosen, others = None, ()
    if _is_folder(path):
        folder = read_event_folder(path, check_crc, roots, budget, MAX_LOG_BYTES, run)
        series, notes, chosen, others = folder.series, folder.notes, folder.run, folder.other_runs
        if not folder.files_read:
            skipped = f" that can be read ({'; '.join(notes)})" if notes else ""
            raise UsageError(
                f"{path}: no TensorBoard event files (events.out.tfevents.*) in this folder{skipped}. "
                f"Supported: {SUPPORTED}."
            )
        seen, fmt = list(series), "tfevents"
    else:
        if run is not None:
            raise UsageError(f"{path} is a file: a run ({run!r}) is chosen among the runs of a folder of "
                             "TensorBoard event files. Pass that folder, or leave the run out.")
        with _open(path, roots) as handle:
            series, seen, fmt, notes = _read_file(path, handle, check_crc, budget)
    if not series:
        columns = ", ".join(seen[:20]) + (", ..." if len(seen) > 20 else "") if seen else "none"
        problems = f" ({'; '.join(notes)})" if notes else ""
        raise UsageError(
            f"{path}: no numeric series found{problems}. Columns seen: {columns}. "
            "A loss log needs a column or field of numbers such as `loss` or `val_loss`."
        )
    return LossLog(series=series, source=str(path), format=fmt, notes=tuple(notes), run=chosen, other_runs=others)


def detect_format(path: Path, roots: tuple[Path, ...] | None = None) -> str:
    """csv, tsv, jsonl, json or tfevents, from the name first and the first bytes second."""
    path = Path(path)
    if _is_folder(path):
        return "tfevents"
    with _open(path, roots) as handle:
        return sniff_format(path, handle.read(SNIFF_BYTES))


def sniff_format(path: Path, head: bytes) -> str:
    """The format of a file named `path` whose first bytes are `head`."""
    if is_event_file(path):
        return "tfevents"
    if path.suffix.lower() in EXTENSIONS:
        return EXTENSIONS[path.suffix.lower()]
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


def _is_folder(path: Path) -> bool:
    """True for a folder; UsageError for a path that names nothing (or that no file can have)."""
    try:
        return os.stat(path).st_mode & 0o170000 == 0o040000
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = "no such file or folder" if isinstance(exc, FileNotFoundError) else f"cannot be read ({why(exc)})"
        raise UsageError(f"{path}: {reason}. Pass a training log: {SUPPORTED}.") from None


def _open(path: Path, roots: tuple[Path, ...] | None) -> BinaryIO:
    """A reader of the regular file at `path` (see safe_read.open_regular), within MAX_LOG_BYTES."""
    try:
        handle = open_regular(path, roots)
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({why(exc)})") from None
    size = os.fstat(handle.fileno()).st_size
    if size > MAX_LOG_BYTES:
        handle.close()
        raise UnreadableFile(
            f"{path} is {size:,} bytes, over the {MAX_LOG_BYTES:,}-byte (1 GiB) limit for a training log: "
            "pass a shorter log, or keep every k-th row"
        )
    return handle


def _read_file(path: Path, handle: BinaryIO, check_crc: bool | None, budget: Budget):
    """(series, names seen, format, notes) of one open log file."""
    size = os.fstat(handle.fileno()).st_size
    fmt = sniff_format(path, handle.read(SNIFF_BYTES))
    handle.seek(0)
    with naming(path):
        if fmt == "tfevents":
            series, notes = read_event_file(handle, size, check_crc, budget)
            return series, list(series), fmt, notes
        if fmt in ("csv", "tsv"):
            series, seen, notes = table_series(Lines(handle), "," if fmt == "csv" else "\t", budget)
            return series, seen, fmt, notes
        if _is_json_lines(handle):
            return lines_series(Lines(handle), budget)
        return document_series(_document(path, handle, size), budget)


def _is_json_lines(handle: BinaryIO) -> bool:
    """True when the first non-blank line is a whole JSON object and another non-blank line
    follows: JSON lines, streamed. Otherwise one document, read whole. Leaves `handle` at 0."""
    from .curve_json import parse_json

    lines = (line.strip() for line in iter(lambda: handle.readline(MAX_LINE_CHARS + 1), b""))
    first = next((line for line in lines if line), b"")
    more = next((True for line in lines if line), False)
    handle.seek(0)
    if not (more and first.lstrip(b"\xef\xbb\xbf").startswith(b"{")) or len(first) > MAX_LINE_CHARS:
        return False
    try:
        parse_json(first.decode("utf-8-sig"), "line 1")
    except (ValueError, UsageError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return False
    return True


def _document(path: Path, handle: BinaryIO, size: int) -> str:
    """The whole text of a JSON document, within MAX_DOCUMENT_BYTES."""
    if size > MAX_DOCUMENT_BYTES:
        raise UnreadableFile(
            f"{path} is {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,}-byte (256 MiB) limit for a JSON document, "
            "which is read whole: write the records as JSON lines (one object per line), which are streamed"
        )
    data = handle.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise UnreadableFile(f"{path} grew past the {MAX_DOCUMENT_BYTES:,}-byte limit for a JSON document while read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"not a UTF-8 text file (byte {exc.start}). Supported: {SUPPORTED}.") from None
