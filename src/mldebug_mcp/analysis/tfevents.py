"""Scalars from TensorBoard event files, without tensorflow or tensorboard.

A minimal protobuf wire-format decoder for the messages that carry scalars:
    Event    wall_time=1 double, step=2 int64, file_version=3 string, summary=5 Summary
    Summary  value=1 repeated Value
    Value    tag=1 string, simple_value=2 float, tensor=8 TensorProto
    Tensor   dtype=1, tensor_shape=2, tensor_content=4, float_val=5, double_val=6
Scalars come from simple_value (the classic writer) and from one-element DT_FLOAT/DT_DOUBLE
tensors (TF2 and torch's new_style writer). Everything else (images, histograms, text) is skipped.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .curve_points import Budget, Points
from .tfrecord import iter_records

DT_FLOAT, DT_DOUBLE = 1, 2
_FORMATS = {DT_FLOAT: "f", DT_DOUBLE: "d"}
BUDGET_EVERY = 65_536  # scalars between two checks of the point budget


class ProtobufError(ValueError):
    """A record whose checksum passed but whose bytes are not the message expected."""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ProtobufError("varint runs past the end of the message")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ProtobufError("varint longer than 10 bytes")


def _fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield (field number, wire type, value): an int for varints, bytes for everything else."""
    pos, end = 0, len(buf)
    while pos < end:
        key = buf[pos]  # one-byte keys and lengths are the common case: skip the call
        key, pos = (key, pos + 1) if key < 0x80 else _varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 2:
            length = buf[pos] if pos < end else 0x80
            length, pos = (length, pos + 1) if length < 0x80 else _varint(buf, pos)
            value, pos = buf[pos : pos + length], pos + length
        elif wire == 0:
            value, pos = _varint(buf, pos)
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, pos = buf[pos : pos + width], pos + width
        else:  # groups (3, 4) are not used by these messages
            raise ProtobufError(f"unexpected wire type {wire} in field {number}")
        if pos > end:
            raise ProtobufError(f"field {number} runs past the end of the message")
        yield number, wire, value


def event_scalars(record: bytes) -> tuple[int, list[tuple[str, float]]]:
    """The step of one Event record and its (tag, value) scalars."""
    step, scalars = 0, []  # proto3 leaves step 0 out of the bytes
    for number, wire, value in _fields(record):
        if number == 2 and wire == 0:
            step = value - (1 << 64) if value >= 1 << 63 else value  # int64 two's complement
        elif number == 5 and wire == 2:
            for inner, inner_wire, summary_value in _fields(value):
                if inner == 1 and inner_wire == 2:
                    tag, scalar = _summary_value(summary_value)
                    if tag is not None and scalar is not None:
                        scalars.append((tag, scalar))
    return step, scalars


def _summary_value(buf: bytes) -> tuple[str | None, float | None]:
    tag, scalar = None, None
    for number, wire, value in _fields(buf):
        if number == 1 and wire == 2:
            tag = value.decode("utf-8", "replace")
        elif number == 2 and wire == 5:
            scalar = struct.unpack("<f", value)[0]
        elif number == 8 and wire == 2:
            scalar = _tensor_scalar(value)
    return tag, scalar


def _tensor_scalar(buf: bytes) -> float | None:
    """The value of a one-element float or double tensor; None for any other tensor."""
    dtype, dims, content, numbers = 0, [], b"", []
    for number, wire, value in _fields(buf):
        if number == 1 and wire == 0:
            dtype = value
        elif number == 2 and wire == 2:
            dims = [_dim_size(d) for n, w, d in _fields(value) if n == 2 and w == 2]
        elif number == 4 and wire == 2:
            content = value
        elif number in (5, 6) and wire != 0:  # float_val / double_val, packed (wire 2) or one per field
            fmt = "f" if number == 5 else "d"
            count = len(value) // struct.calcsize(fmt)
            numbers += struct.unpack(f"<{count}{fmt}", value[: count * struct.calcsize(fmt)])
    fmt = _FORMATS.get(dtype)
    if fmt is None or any(size != 1 for size in dims):
        return None
    if content:
        return struct.unpack(f"<{fmt}", content)[0] if len(content) == struct.calcsize(fmt) else None
    return float(numbers[0]) if len(numbers) == 1 else None


def _dim_size(buf: bytes) -> int:
    for number, wire, value in _fields(buf):
        if number == 1 and wire == 0:
            return value
    return 0  # proto3 leaves size 0 out


def is_event_file(path: Path) -> bool:
    return "tfevents" in path.name


def read_event_file(stream: BinaryIO, size: int, check_data: bool | None = None,
                    budget: Budget | None = None) -> tuple[dict[str, Points], list[str]]:
    """tag -> points in file order, and notes on skipped or cut records; one record in memory at a time."""
    notes: list[str] = []
    series: dict[str, Points] = {}
    undecodable = read = 0
    for record in iter_records(stream, size, notes, check_data):
        try:
            step, scalars = event_scalars(record)
        except ProtobufError:
            undecodable += 1
            continue
        for tag, value in scalars:
            points = series.get(tag)
            if points is None:
                points = series[tag] = Points()
            points.append(step, value)
        read += len(scalars)
        if budget is not None and read >= BUDGET_EVERY:
            budget.spend(read)
            read = 0
    if budget is not None:
        budget.spend(read)
    if undecodable:
        notes.append(f"{undecodable} record(s) are not Event messages and were skipped")
    return series, notes
