"""A table of texts (str -> str) kept as one block of bytes, each value decoded when it is asked for.

The matcher's index is thousands of small JSON texts, one per term, of which a description reads a few
dozen; parsed whole, they cost more than the rest of the cold triage call. Stored after a header that lists
the keys and where each value ends, they are read as one block (its CRC checked) and sliced on demand."""

from __future__ import annotations

import zlib
from collections.abc import Iterator


class TextTable:
    """Read-only mapping over the block: `get`, `in`, `len`, iteration and `items` as a dict has them."""

    __slots__ = ("_body", "_ends", "_number")

    def __init__(self, keys: list[str], ends: list[int], body: bytes | memoryview):
        self._number = {key: i for i, key in enumerate(keys)}
        self._ends = ends
        self._body = body

    def get(self, key: str, default: str | None = None) -> str | None:
        i = self._number.get(key)
        if i is None:
            return default
        return str(self._body[self._ends[i - 1] if i else 0:self._ends[i]], "utf-8")

    def __contains__(self, key: object) -> bool:
        return key in self._number

    def __len__(self) -> int:
        return len(self._number)

    def __iter__(self) -> Iterator[str]:
        return iter(self._number)

    def items(self) -> Iterator[tuple[str, str]]:
        return ((key, self.get(key)) for key in self._number)


def pack(table: dict[str, str] | TextTable) -> tuple[dict, bytes]:
    """The header fields of a table (keys, where each value ends, the block's CRC) and its block."""
    parts = [value.encode("utf-8") for _, value in table.items()]
    ends, end = [], 0
    for part in parts:
        end += len(part)
        ends.append(end)
    body = b"".join(parts)
    return {"keys": list(table), "ends": ends, "crc32": zlib.crc32(body)}, body


def unpack(fields: object, body: bytes | memoryview) -> TextTable | None:
    """The table that header fields and a block describe, or None when they disagree (a damaged file)."""
    if not isinstance(fields, dict):
        return None
    keys, ends = fields.get("keys"), fields.get("ends")
    if not (isinstance(keys, list) and isinstance(ends, list) and len(keys) == len(ends)):
        return None
    if (ends[-1] if ends else 0) != len(body) or fields.get("crc32") != zlib.crc32(body):
        return None
    return TextTable(keys, ends, body)
