"""The events file reader: what the runner writes is read, anything else is a MalformedEvent naming the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mldebug_mcp.diagnostics.events import (
    EVENT_LINE_LIMIT_BYTES,
    EventReader,
    MalformedEvent,
)

STARTED = {"event": "started", "pid": 1, "python": "python"}
REPORT = {"event": "report", "report": {"status": "pass", "checks": []}}


def reader_of(tmp_path: Path, *lines: bytes | dict) -> EventReader:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"".join(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n"
                              for line in lines))
    return EventReader(path)


def test_runner_events_are_read_once_each_and_a_half_written_line_waits(tmp_path):
    progress = {"event": "progress", "index": 1, "total": 2, "check": "loss_at_init"}
    events = reader_of(tmp_path, STARTED, progress, b'{"event": "rep')
    assert events.read() == [STARTED, progress]
    assert events.read() == []
    with open(events.path, "ab") as stream:
        stream.write(json.dumps(REPORT)[len('{"event": "rep'):].encode() + b"\n")
    assert events.read() == [REPORT]


def test_nothing_after_the_final_event_is_looked_at(tmp_path):
    assert reader_of(tmp_path, STARTED, REPORT, b"garbage\n").read() == [STARTED, REPORT]


@pytest.mark.parametrize("line, problem", [
    (b"oops\n", "line 2: not JSON ('oops')"),
    (b"\xff\xfe\n", "line 2: not UTF-8"),
    (b"[1, 2]\n", "line 2: a JSON list, not an object"),
    (b"[" * 100_000 + b"\n", "line 2: not JSON"),
    ({"event": "party"}, "line 2: unknown event 'party'"),
    ({"no": "event"}, "line 2: unknown event None"),
    ({"event": "progress", "index": 1}, "line 2: 'progress' event has no 'total'"),
    ({"event": "progress", "index": "1", "total": 2, "check": "x"}, "'index' should be int, not str"),
    ({"event": "progress", "index": True, "total": 2, "check": "x"}, "'index' should be int, not bool"),
    ({"event": "error", "stage": "run", "error": "boom"}, "'error' should be dict, not str"),
    ({"event": "error", "stage": "run", "error": {"type": "E", "message": "m"}}, "error has no 'frames'"),
    ({"event": "error", "stage": "run", "error": {"type": "E", "message": "m", "frames": [1]}}, "not all strings"),
    ({"event": "report", "report": [1]}, "'report' should be dict, not list"),
    ({"event": "report", "report": {"status": "pass"}}, "the report does not validate (checks: Field required)"),
    ({"event": "report", "report": {"status": "pass", "checks": [{"id": 3}]}}, "the report does not validate (checks.0."),
])
def test_each_kind_of_garbage_names_its_line_and_fault(tmp_path, line, problem):
    with pytest.raises(MalformedEvent) as caught:
        reader_of(tmp_path, STARTED, line).read()
    assert problem in str(caught.value)


def test_a_line_past_the_limit_is_refused_without_reading_it_whole(tmp_path):
    events = reader_of(tmp_path, STARTED)
    assert events.read() == [STARTED]
    with open(events.path, "ab") as stream:
        stream.write(b"x" * (EVENT_LINE_LIMIT_BYTES + 10))
    with pytest.raises(MalformedEvent, match="line 2: longer than 16 MiB"):
        events.read()


def test_a_truncated_file_and_a_last_line_without_newline_are_malformed(tmp_path):
    events = reader_of(tmp_path, STARTED)
    events.read()
    events.path.write_bytes(b"")
    with pytest.raises(MalformedEvent, match="shrank"):
        events.read()
    cut = reader_of(tmp_path, STARTED, b'{"event": "progress"')
    assert cut.read() == [STARTED]
    with pytest.raises(MalformedEvent, match="line 2: 20 bytes without the closing newline"):
        cut.check_ended()
