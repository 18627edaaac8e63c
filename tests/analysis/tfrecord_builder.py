"""Hand-built TensorBoard records for the reader tests: a tiny protobuf encoder and TFRecord framing."""

from __future__ import annotations

import struct

from mldebug_mcp.analysis.tfrecord import masked_crc32c


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 as two's complement, like protobuf
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, wire: int, payload: bytes | int) -> bytes:
    key = varint(number << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload  # fixed 32 or 64 bits, already packed


def simple_value(tag: str, value: float) -> bytes:
    return field(1, 2, tag.encode()) + field(2, 5, struct.pack("<f", value))


def tensor_value(tag: str, tensor: bytes) -> bytes:
    return field(1, 2, tag.encode()) + field(8, 2, tensor)


def tensor(dtype: int, content: bytes = b"", floats: list[float] = (), doubles: list[float] = (),
           dims: list[int] = (), packed: bool = True) -> bytes:
    shape = b"".join(field(2, 2, field(1, 0, size)) for size in dims)
    out = field(1, 0, dtype) + (field(2, 2, shape) if dims else b"")
    if content:
        out += field(4, 2, content)
    if floats:
        out += field(5, 2, struct.pack(f"<{len(floats)}f", *floats)) if packed else b"".join(
            field(5, 5, struct.pack("<f", f)) for f in floats)
    if doubles:
        out += field(6, 2, struct.pack(f"<{len(doubles)}d", *doubles))
    return out


def event(step: int, *values: bytes, wall_time: float = 1.7e9) -> bytes:
    summary = b"".join(field(1, 2, value) for value in values)
    return field(1, 1, struct.pack("<d", wall_time)) + (field(2, 0, step) if step else b"") + field(5, 2, summary)


def version_event() -> bytes:
    return field(1, 1, struct.pack("<d", 1.7e9)) + field(3, 2, b"brain.Event:2")


def record(payload: bytes) -> bytes:
    length = struct.pack("<Q", len(payload))
    return length + struct.pack("<I", masked_crc32c(length)) + payload + struct.pack("<I", masked_crc32c(payload))
