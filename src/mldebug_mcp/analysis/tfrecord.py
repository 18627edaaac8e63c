"""TFRecord framing, the container of TensorBoard event files, with its CRC32C checksums.

Each record is: uint64 length (little-endian), uint32 masked CRC32C of those 8 bytes, the data,
uint32 masked CRC32C of the data.

The checksum comes from google-crc32c's C extension when it is installed (GB/s). Without it a
table-driven pure-Python CRC32C (about 7 MB/s) is the fallback: on a 60 MB file it would spend
nine seconds out of ten checksumming, so by default it checks only the 8-byte lengths, which
guard the framing, and leaves the data unchecked (a corrupt payload then mostly fails to decode
and is skipped by tfevents). See `verify_data_by_default`.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable, Iterator
from typing import BinaryIO

_CASTAGNOLI = 0x82F63B78  # CRC32C polynomial, bit-reversed
_MASK_DELTA = 0xA282EAD8  # TFRecord's mask constant


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _CASTAGNOLI if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _table()


def python_crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of `data` in pure Python: the fallback, and the reference in tests."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _fast_crc32c() -> Callable[[bytes], int] | None:
    """google-crc32c's C implementation, or None (not installed, or only its pure-Python fallback)."""
    try:
        import google_crc32c
    except ImportError:
        return None
    return google_crc32c.value if getattr(google_crc32c, "implementation", "") == "c" else None


FAST_CRC32C = _fast_crc32c()
crc32c: Callable[[bytes], int] = FAST_CRC32C or python_crc32c
"""CRC-32C of `data`, fast when google-crc32c is installed; crc32c(b"123456789") == 0xE3069283."""


def verify_data_by_default() -> bool:
    """Whether record data is checksummed when the caller does not say: only when it is cheap."""
    return FAST_CRC32C is not None


def masked_crc32c(data: bytes) -> int:
    """The checksum as TFRecord stores it: rotated right by 15 bits plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def read_records(data: bytes, check_data: bool | None = None) -> tuple[list[bytes], list[str]]:
    """Split `data` into record payloads; return them with notes on what was skipped or cut (see iter_records)."""
    notes: list[str] = []
    records = list(iter_records(io.BytesIO(data), len(data), notes, check_data))
    return records, notes


def iter_records(stream: BinaryIO, size: int, notes: list[str], check_data: bool | None = None) -> Iterator[bytes]:
    """The record payloads of a stream of `size` bytes, one at a time; notes on what was skipped or
    cut are appended to `notes` as the reading meets them.

    A length whose checksum fails cannot be trusted, so reading stops there. A payload whose
    checksum fails is skipped (its length was verified, so the next record is still found).
    `check_data` True or False forces the payload check on or off; None checks when the checksum
    is cheap (verify_data_by_default). A record cut short at the end of the file (a run still
    writing) ends the reading with a note, not an error; so does a length that claims more bytes
    than the file holds, which is never read.
    """
    if check_data is None:
        check_data = verify_data_by_default()
    masked = masked_crc32c  # looked up once: this loop runs once per record
    bad_payloads = 0
    pos = 0
    while True:
        header = stream.read(12)
        if not header:
            break
        if len(header) < 12:
            notes.append(f"the last record is cut short at byte {pos} (the run may still be writing): read up to there")
            break
        if masked(header[:8]) != struct.unpack_from("<I", header, 8)[0]:
            notes.append(f"corrupt record length at byte {pos}: stopped reading there")
            break
        (length,) = struct.unpack_from("<Q", header)
        body = stream.read(length + 4) if length + 4 <= size - pos - 12 else b""
        if len(body) < length + 4:
            notes.append(f"the last record is cut short at byte {pos} (the run may still be writing): read up to there")
            break
        payload = body[:length]
        if check_data and masked(payload) != struct.unpack_from("<I", body, length)[0]:
            bad_payloads += 1
        else:
            yield payload
        pos += 12 + length + 4
    if bad_payloads:
        notes.append(f"{bad_payloads} record(s) failed their data checksum and were skipped")
