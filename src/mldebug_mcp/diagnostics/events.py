"""Read the child's events file: JSON lines appended by checks/runner.py, each checked before use.

The file's path is in the child's argv, so user code can write there too. Anything that is not an
event the runner would write (not UTF-8, not JSON, not an object, an unknown kind, missing fields,
wrong types, a report that does not validate) ends the run with a MalformedEvent naming the line,
and no read takes more than EVENT_LINE_LIMIT_BYTES (+1) into memory, however long a line is.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

EVENT_LINE_LIMIT_BYTES = 16 * 2**20  # a real report is a few hundred KiB at most
FINAL_EVENTS = ("report", "error")
EVENT_FIELDS: dict[str, dict[str, type]] = {  # the fields each kind of event must carry, and their types
    "started": {"pid": int, "python": str},
    "progress": {"index": int, "total": int, "check": str},
    "error": {"stage": str, "error": dict},
    "report": {"report": dict},
}
ERROR_FIELDS: dict[str, type] = {"type": str, "message": str, "frames": list}


class MalformedEvent(Exception):
    """A line of the events file that the runner did not write; the message says which and why."""


class EventReader:
    """Follows the events file: each call returns the events completed since the last one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0  # bytes of complete lines already read
        self._line = 0  # how many lines already read
        self._pending = 0  # bytes after the last newline at the last read

    def read(self) -> list[dict[str, Any]]:
        """New complete events, up to and including a final one; MalformedEvent for the first bad line."""
        chunk = self._read_chunk()
        complete, newline, rest = chunk.rpartition(b"\n")
        self._pending = len(rest)
        if not newline:
            if len(chunk) > EVENT_LINE_LIMIT_BYTES:
                raise MalformedEvent(f"line {self._line + 1}: longer than {EVENT_LINE_LIMIT_BYTES >> 20} MiB")
            return []
        events = []
        for raw in complete.split(b"\n"):
            self._line += 1
            self._offset += len(raw) + 1
            events.append(self.parse(raw, self._line))
            if events[-1]["event"] in FINAL_EVENTS:
                break  # whatever follows the final event is never looked at
        return events

    def parse(self, raw: bytes, line: int) -> dict[str, Any]:
        """One line as an event; a reader of another run's events (the landscape probe's) checks its report."""
        return parse_event(raw, line)

    def check_ended(self) -> None:
        """After the child is gone: a last line without its newline means the writer was cut off, or was not us."""
        if self._pending:
            raise MalformedEvent(f"line {self._line + 1}: {self._pending} bytes without the closing newline")

    def _read_chunk(self) -> bytes:
        with open(self.path, "rb") as stream:
            if os.fstat(stream.fileno()).st_size < self._offset:
                raise MalformedEvent(f"the file shrank below the {self._line} lines already read (truncated or rewritten)")
            stream.seek(self._offset)
            return stream.read(EVENT_LINE_LIMIT_BYTES + 1)


def parse_event(raw: bytes, line: int) -> dict[str, Any]:
    """One line as an event the runner writes, or MalformedEvent saying what is wrong with it."""
    try:
        event = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise MalformedEvent(f"line {line}: not UTF-8") from None
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
        raise MalformedEvent(f"line {line}: not JSON ({_preview(raw)})") from None
    if not isinstance(event, dict):
        raise MalformedEvent(f"line {line}: a JSON {type(event).__name__}, not an object ({_preview(raw)})")
    kind = event.get("event")
    if kind not in EVENT_FIELDS:
        raise MalformedEvent(f"line {line}: unknown event {kind!r}; the runner writes {', '.join(EVENT_FIELDS)}")
    _check_fields(event, EVENT_FIELDS[kind], f"line {line}: {kind!r} event")
    if kind == "error":
        _check_fields(event["error"], ERROR_FIELDS, f"line {line}: 'error' event's error")
        if not all(isinstance(frame, str) for frame in event["error"]["frames"]):
            raise MalformedEvent(f"line {line}: 'error' event's frames are not all strings")
    if kind == "report":
        _check_report(event["report"], line)
    return event


def _check_fields(record: dict[str, Any], fields: dict[str, type], what: str) -> None:
    for name, kind in fields.items():
        if name not in record:
            raise MalformedEvent(f"{what} has no {name!r}")
        if not isinstance(record[name], kind) or (kind is int and isinstance(record[name], bool)):
            raise MalformedEvent(f"{what}: {name!r} should be {kind.__name__}, not {type(record[name]).__name__}")


def _check_report(report: dict[str, Any], line: int) -> None:
    """The report must be what services/diagnose.py can turn into a DiagnosticReport."""
    from pydantic import ValidationError

    from ..models.diagnose import DiagnosticReport

    try:
        DiagnosticReport.model_validate({"target": "-", **report})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the report"
        raise MalformedEvent(f"line {line}: the report does not validate ({where}: {first['msg']})") from None


def _preview(raw: bytes) -> str:
    text = raw[:60].decode("utf-8", errors="replace")
    return repr(text) + ("..." if len(raw) > 60 else "")
