"""The lines of a text log, read from a binary file: UTF-8 (a BOM is dropped), each line bounded.

A line longer than MAX_LINE_CHARS is an error rather than a memory blow-up (a file without line
ends, or one record of a million fields), and so are bytes that are not UTF-8.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import BinaryIO

from ..errors import UsageError

MAX_LINE_CHARS = 1 << 20  # 1 Mi characters: far above any real row of a loss log


class Lines:
    """An iterable of the lines of `handle` (line ends kept, as csv wants); `chars` counts the
    characters handed out so far, so that a reader can cut its batches by size."""

    def __init__(self, handle: BinaryIO, limit: int | None = None) -> None:
        self.text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
        self.limit = MAX_LINE_CHARS if limit is None else limit
        self.chars = 0

    def __iter__(self) -> Iterator[str]:
        readline, limit, number = self.text.readline, self.limit, 0
        try:
            while line := readline(limit + 1):
                number += 1
                if len(line) > limit:
                    raise UsageError(
                        f"line {number} is longer than {limit:,} characters, the limit for one line: "
                        "a loss log holds one row or record per line"
                    )
                self.chars += len(line)
                yield line
        except UnicodeDecodeError as exc:
            raise UsageError(f"not UTF-8 text near line {number + 1} ({exc.reason}): save the log as UTF-8") from None
