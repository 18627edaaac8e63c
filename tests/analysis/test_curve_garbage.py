"""Garbage in, a UsageError out that names the file and the problem: never a traceback.

Each case below raised RecursionError, csv.Error, ValueError or OverflowError from inside the
reader, or read a file of garbage without a word, before these checks.
"""

from __future__ import annotations

import json

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.analysis.tfrecord import masked_crc32c
from mldebug_mcp.errors import UsageError

from .tfrecord_builder import event, record, simple_value

GOOD_ROWS = "".join(f"{i},{2.0 - i / 100}\n" for i in range(30))


def write(tmp_path, name: str, data: str | bytes):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl"])
def test_json_nested_5000_deep_is_named_not_a_recursion_error(tmp_path, name):
    path = write(tmp_path, name, "[" * 5000 + "]" * 5000)
    with pytest.raises(UsageError, match=rf"{name}: .* nests arrays or objects too deeply"):
        read_curve(path)
    path = write(tmp_path, name, '{"step": 1, "loss": 0.5}\n{"x": ' + "[" * 5000 + "]" * 5000 + "}\n{}\n")
    with pytest.raises(UsageError, match=rf"{name}: line 2 nests arrays or objects too deeply"):
        read_curve(path)


def test_a_csv_cell_over_128_kib_is_named_not_a_csv_error(tmp_path):
    path = write(tmp_path, "log.csv", "step,loss,note\n1,0.5,ok\n2,0.4," + "x" * (200 << 10) + "\n")
    with pytest.raises(UsageError, match=r"log.csv: line 3 is not valid CSV \(field larger than field limit"):
        read_curve(path)
    path = write(tmp_path, "quoted.csv", 'step,loss\n1,"' + "x" * (200 << 10) + "\n" * 10)  # an unclosed quote
    with pytest.raises(UsageError, match=r"quoted.csv: line \d+ is not valid CSV"):
        read_curve(path)


def test_integers_of_5000_digits(tmp_path):
    digits = "9" * 5000
    path = write(tmp_path, "log.jsonl", f'{{"step": 1, "loss": 0.5}}\n{{"step": 2, "loss": {digits}}}\n{{}}\n')
    with pytest.raises(UsageError, match=r"log.jsonl: line 2 is not usable JSON \(.*digits"):
        read_curve(path)
    path = write(tmp_path, "log.json", f'[{{"step": {digits}, "loss": 0.5}}]')
    with pytest.raises(UsageError, match=r"log.json: the JSON document is not usable JSON"):
        read_curve(path)
    log = read_curve(write(tmp_path, "log.csv", f"step,loss\n{digits},0.5\n" + GOOD_ROWS))
    assert log.notes == ("1 row(s) have no usable `step` value and were skipped",)  # float() reads it as inf
    huge = read_curve(write(tmp_path, "huge.jsonl", '{"step": 1, "loss": ' + "9" * 400 + "}\n{}\n"))
    assert huge.points("loss") == [(1, float("inf"))]  # beyond the float range, as float("9e399") reads it


def test_invalid_utf8_in_the_middle_of_a_streamed_file(tmp_path):
    body = ("step,loss\n" + "".join(f"{i},{1.0 / (i + 1)}\n" for i in range(20_000))).encode()
    path = write(tmp_path, "log.csv", body[: len(body) // 2] + b"\xff\xfe" + body[len(body) // 2 :])
    with pytest.raises(UsageError, match=r"log.csv: not UTF-8 text near line \d+ .*save the log as UTF-8"):
        read_curve(path)
    lines = "".join(json.dumps({"step": i, "loss": 1.0}) + "\n" for i in range(20_000)).encode()
    path = write(tmp_path, "log.jsonl", lines[: len(lines) // 2] + b"\xc3\x28" + lines[len(lines) // 2 :])
    with pytest.raises(UsageError, match=r"log.jsonl: not UTF-8 text near line"):
        read_curve(path)


def test_a_bom_is_dropped_and_nul_bytes_are_not_numbers(tmp_path):
    log = read_curve(write(tmp_path, "bom.csv", b"\xef\xbb\xbfstep,loss\n" + GOOD_ROWS.encode()))
    assert log.names == ["loss"]
    log = read_curve(write(tmp_path, "bom.jsonl", b'\xef\xbb\xbf{"step": 1, "loss": 0.5}\n{"step": 2, "loss": 0.4}\n'))
    assert log.points("loss") == [(1, 0.5), (2, 0.4)]
    with pytest.raises(UsageError, match=r"nul.csv: no numeric series found"):
        read_curve(write(tmp_path, "nul.csv", "step,loss\n1,0\x00.5\n2,0.4\n"))
    with pytest.raises(UsageError, match=r"nul.jsonl: line 1 is not JSON"):
        read_curve(write(tmp_path, "nul.jsonl", '{"step": 1,\x00 "loss": 0.5}\n{}\n'))


def test_a_file_without_line_ends(tmp_path):
    path = write(tmp_path, "log.csv", "step,loss," + ",".join(["1"] * 700_000))
    with pytest.raises(UsageError, match=r"log.csv: line 1 is longer than 1,048,576 characters"):
        read_curve(path)
    path = write(tmp_path, "log.jsonl", '{"step": 1, "loss": 0.5}\n{"a": "' + "x" * (2 << 20) + '"}\n')
    with pytest.raises(UsageError, match=r"log.jsonl: line 2 is longer than"):
        read_curve(path)


def test_event_files_with_odd_names_and_garbage_records(tmp_path):
    good = b"".join(record(event(step, simple_value("loss", 1.0 / (step + 1)))) for step in range(20))
    write(tmp_path, "events.out.tfevents.²³.host", good)  # int() reads superscripts as digits no more
    write(tmp_path, "events.out.tfevents.1.garbage", record(b"\x0f\xff\xff") + b"\x00" * 7)
    log = read_curve(tmp_path)
    assert len(log.points("loss")) == 20
    assert any("not Event messages" in note for note in log.notes)
    assert any("cut short" in note for note in log.notes)
    claims_too_much = b"\xff" * 8  # a length of 2**64 - 1 whose checksum is right: never read
    framed = claims_too_much + masked_crc32c(claims_too_much).to_bytes(4, "little")
    with pytest.raises(UsageError, match=r"no numeric series found \(the last record is cut short"):
        read_curve(write(tmp_path, "big.tfevents", framed))


def test_a_log_of_only_odd_values_classifies_or_says_why(tmp_path):
    rows = "step,loss\n" + "".join(f"{i},{v}\n" for i, v in enumerate(["1e308", "-1e308", "inf", "nan"] * 5))
    report = analyze_curve(read_curve(write(tmp_path, "odd.csv", rows)))
    assert report.observations[0] == "nan"
