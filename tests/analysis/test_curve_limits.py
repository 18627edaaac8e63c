"""Size limits and streaming: text logs are read a batch of lines at a time into compact arrays;
what must be read whole is bounded, and each limit names itself in its error."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from mldebug_mcp.analysis import curve_io, curve_points, curve_text
from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.analysis.curve_points import Points
from mldebug_mcp.errors import UsageError

ROWS = 200_000


def big_csv(tmp_path, rows: int = ROWS):
    path = tmp_path / "big.csv"
    with path.open("w") as handle:
        handle.write("step,loss,val_loss\n")
        handle.writelines(f"{i},{2.0 / (1 + i / 1000):.6f},{'' if i % 100 else '1.5'}\n" for i in range(rows))
    return path


def test_a_large_csv_is_streamed_into_compact_arrays(tmp_path):
    path = big_csv(tmp_path)
    tracemalloc.start()
    try:
        log = read_curve(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    loss = log.series["loss"]
    assert isinstance(loss, Points) and loss.steps.typecode == "q" and loss.values.typecode == "d"
    assert len(loss) == ROWS and len(log.series["val_loss"]) == ROWS // 100
    # about 11 MB: 16 bytes a point once read, a batch of rows while reading; the whole text and
    # lists of tuples (the reader before streaming) took over 120 MB here
    assert peak < 30e6, f"peak {peak / 1e6:.1f} MB"
    assert log.points("val_loss")[:2] == [(0, 1.5), (100, 1.5)]


def test_a_log_over_the_size_limit_names_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(curve_io, "MAX_LOG_BYTES", 1000)
    with pytest.raises(UsageError, match=r"big.csv is .* bytes, over the 1,000-byte .* limit for a training log"):
        read_curve(big_csv(tmp_path, 100))


def test_a_json_document_is_read_whole_within_its_own_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(curve_io, "MAX_DOCUMENT_BYTES", 1000)
    path = tmp_path / "history.json"
    path.write_text(json.dumps([{"step": i, "loss": 1.0 / (i + 1)} for i in range(100)]))
    with pytest.raises(UsageError, match=r"history.json is .* over the 1,000-byte .* limit for a JSON document.*JSON lines"):
        read_curve(path)
    lines = tmp_path / "history.jsonl"  # the same records as JSON lines are streamed: no such limit
    lines.write_text("".join(json.dumps({"step": i, "loss": 1.0 / (i + 1)}) + "\n" for i in range(100)))
    assert len(read_curve(lines).points("loss")) == 100


def test_points_over_the_limit_stop_the_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(curve_points, "MAX_POINTS", 5000)
    with pytest.raises(UsageError, match=r"big.csv: more than 5,000 points, the limit for one log"):
        read_curve(big_csv(tmp_path, 10_000))
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps({"step": i, "loss": 1.0, "acc": 0.5}) + "\n" for i in range(70_000)))
    with pytest.raises(UsageError, match=r"log.jsonl: more than 5,000 points"):
        read_curve(path)


def test_a_line_over_the_line_limit_is_refused_before_it_is_held(tmp_path, monkeypatch):
    monkeypatch.setattr(curve_text, "MAX_LINE_CHARS", 100)
    path = tmp_path / "log.csv"
    path.write_text("step,loss\n1,0.5\n2," + "1" * 500 + "\n")
    with pytest.raises(UsageError, match=r"log.csv: line 3 is longer than 100 characters"):
        read_curve(path)


def test_steps_keep_their_type_in_compact_storage(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("step,loss\n1,0.5\n2.5,0.4\n" + f"{2**70},0.3\n")
    steps = [s for s, _ in read_curve(path).points("loss")]
    assert steps == [1, 2.5, 2**70] and [type(s) for s in steps] == [int, float, int]


def test_a_sparse_column_with_missing_markers_and_a_text_column(tmp_path):
    path = tmp_path / "log.csv"
    rows = [f"{i},{1.0 / (i + 1)},{'n/a' if i % 3 else 0.7},{'warmup' if i < 2 else ''}" for i in range(70_000)]
    path.write_text("step,loss,val_loss,phase\n" + "\n".join(rows) + "\n")
    log = read_curve(path)
    assert log.names == ["loss", "val_loss"]  # `phase` is text: dropped at its first word
    assert len(log.points("val_loss")) == len(range(0, 70_000, 3))
    report = analyze_curve(log)
    assert (report.loss_series, report.val_series) == ("loss", "val_loss")
