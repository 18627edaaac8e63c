"""TensorBoard event files read without tensorboard: a real writer's file and hand-built records."""

from __future__ import annotations

import math
import random
import shutil
import struct
from pathlib import Path

import pytest

from mldebug_mcp.analysis import tfrecord
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.analysis.tfevents import event_scalars
from mldebug_mcp.analysis.tfrecord import crc32c, python_crc32c, read_records
from mldebug_mcp.errors import UsageError

from .tfrecord_builder import (
    event,
    record,
    simple_value,
    tensor,
    tensor_value,
    version_event,
)

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "tfevents"
FIXTURE = FIXTURE_DIR / "events.out.tfevents.1700000000.fixture"
DT_FLOAT, DT_DOUBLE, DT_STRING = 1, 2, 7


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@pytest.mark.parametrize("checksum", [crc32c, python_crc32c], ids=["default", "pure-python"])
def test_crc32c_matches_the_standard_check_value(checksum):
    assert checksum(b"123456789") == 0xE3069283
    assert checksum(b"") == 0


def test_the_fast_crc32c_agrees_with_the_pure_python_one():
    if tfrecord.FAST_CRC32C is None:
        pytest.skip("google-crc32c's C extension is not installed")
    rng = random.Random(0)
    for size in (1, 7, 8, 63, 64, 1000, 4099):
        data = rng.randbytes(size)
        assert tfrecord.FAST_CRC32C(data) == python_crc32c(data)


def test_reads_the_fixture_written_by_torch_summary_writer():
    log = read_curve(FIXTURE)
    assert log.format == "tfevents"
    assert log.names == ["train/loss", "train/lr", "train/grad_norm", "val/loss"]
    loss = log.points("train/loss")
    assert [s for s, _ in loss] == list(range(40))
    assert math.isnan(dict(loss)[25])
    assert dict(loss)[3] == f32(2.3 * math.exp(-3 / 15) + 0.1)
    assert [s for s, _ in log.points("val/loss")] == [9, 19, 29, 39]
    assert dict(log.points("train/lr"))[10] == f32(1e-3 * (1 - 10 / 40))  # new-style float tensor
    assert dict(log.points("train/grad_norm"))[10] == pytest.approx(2.0, abs=1e-12)  # double tensor
    assert log.notes == ()


def test_a_folder_merges_its_files_and_prefixes_sub_folders(tmp_path):
    assert read_curve(FIXTURE_DIR).names == read_curve(FIXTURE).names
    for sub in ("train", "validation"):
        (tmp_path / sub).mkdir()
        shutil.copy(FIXTURE, tmp_path / sub / FIXTURE.name)
    names = read_curve(tmp_path).names
    assert "train/train/loss" in names and "validation/val/loss" in names


def test_files_of_one_folder_merge_by_tag_in_start_time_order(tmp_path):
    (tmp_path / "events.out.tfevents.200.host").write_bytes(record(event(2, simple_value("loss", 0.5))))
    (tmp_path / "events.out.tfevents.100.host").write_bytes(
        record(version_event())
        + record(event(1, simple_value("loss", 1.0)))
        + record(event(2, simple_value("loss", 9.0)))
    )
    assert read_curve(tmp_path).points("loss") == [(1, 1.0), (2, 0.5)]  # the later file rewrote step 2


def test_tensor_valued_scalars_from_content_float_val_and_double_val():
    payload = event(
        7,
        tensor_value("content", tensor(DT_FLOAT, content=struct.pack("<f", 0.25))),
        tensor_value("packed", tensor(DT_FLOAT, floats=[0.5])),
        tensor_value("unpacked", tensor(DT_FLOAT, floats=[0.75], packed=False)),
        tensor_value("double", tensor(DT_DOUBLE, doubles=[1.0 / 3])),
        tensor_value("one_by_one", tensor(DT_FLOAT, floats=[2.0], dims=[1, 1])),
        tensor_value("vector", tensor(DT_FLOAT, floats=[1.0, 2.0], dims=[2])),
        tensor_value("text", tensor(DT_STRING, content=b"hello")),
        simple_value("simple", float("nan")),
    )
    step, scalars = event_scalars(payload)
    values = dict(scalars)
    assert step == 7
    assert math.isnan(values.pop("simple"))
    assert values == {"content": 0.25, "packed": 0.5, "unpacked": 0.75, "double": 1.0 / 3, "one_by_one": 2.0}


def test_negative_and_large_steps_round_trip():
    assert event_scalars(event(-5, simple_value("x", 1.0)))[0] == -5
    assert event_scalars(event(2**40, simple_value("x", 1.0)))[0] == 2**40


def _three_records() -> list[bytes]:
    return [record(event(step, simple_value("loss", 1.0 / (step + 1)))) for step in range(3)]


def test_a_corrupt_data_checksum_skips_that_record_only(tmp_path):
    first, second, third = _three_records()
    broken = bytearray(second)
    broken[-5] ^= 0xFF  # a payload byte: its checksum no longer matches
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(first + bytes(broken) + third)
    log = read_curve(path, check_crc=True)
    assert [s for s, _ in log.points("loss")] == [0, 2]
    assert any("failed their data checksum" in note for note in log.notes)
    assert [s for s, _ in read_curve(path, check_crc=False).points("loss")] == [0, 1, 2]


@pytest.mark.parametrize("fast", [True, False], ids=["google-crc32c", "pure-python"])
def test_data_checksums_are_checked_by_default_only_when_cheap(tmp_path, monkeypatch, fast):
    """Without a fast CRC32C the pure-Python one would take 90% of the reading (60 MB in 8 s): by default
    only the 8-byte lengths are checked then, which keeps the framing safe."""
    monkeypatch.setattr(tfrecord, "FAST_CRC32C", python_crc32c if fast else None)
    first, second, third = _three_records()
    broken = bytearray(second)
    broken[-5] ^= 0xFF
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(first + bytes(broken) + third)
    assert [s for s, _ in read_curve(path).points("loss")] == ([0, 2] if fast else [0, 1, 2])
    broken_length = bytearray(second)
    broken_length[0] ^= 0x01
    path.write_bytes(first + bytes(broken_length) + third)
    assert read_curve(path).notes == (f"corrupt record length at byte {len(first)}: stopped reading there",)


def test_a_corrupt_length_stops_reading_with_a_note():
    first, second, third = _three_records()
    broken = bytearray(second)
    broken[0] ^= 0x01  # the length no longer matches its checksum
    records, notes = read_records(first + bytes(broken) + third)
    assert len(records) == 1
    assert notes == [f"corrupt record length at byte {len(first)}: stopped reading there"]


@pytest.mark.parametrize("cut", [3, 10, 20])
def test_a_truncated_final_record_is_tolerated(tmp_path, cut):
    first, second, third = _three_records()
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(first + second + third[:cut])
    log = read_curve(path)
    assert [s for s, _ in log.points("loss")] == [0, 1]
    assert any("cut short" in note and "still be writing" in note for note in log.notes)


def test_a_file_that_is_not_an_event_file_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(b"this is not a tfrecord file at all")
    with pytest.raises(UsageError, match="no numeric series found.*corrupt record length at byte 0"):
        read_curve(path)


def test_a_folder_without_event_files_is_refused(tmp_path):
    with pytest.raises(UsageError, match="no TensorBoard event files"):
        read_curve(tmp_path)


def test_many_records_read_in_order():
    data = b"".join(record(event(step, simple_value("loss", float(step)))) for step in range(5000))
    records, notes = read_records(data)
    assert notes == [] and len(records) == 5000
    assert event_scalars(records[-1]) == (4999, [("loss", 4999.0)])
