"""Open user files so that the check and the read are about the same object.

A path is checked against the allow-list only after it is open: the real path of the open
descriptor is what must lie inside an allowed directory, so a file swapped for a symlink
between a check and a read cannot lead outside. Only regular files are read (a FIFO would
block forever, /dev/zero would never end), opened without blocking, and every read is bounded.

A leaf module: the cores (lint, analysis) and the services use it alike.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

from .errors import UsageError

TYPE_CHECKING = False  # importing `typing` costs lint's start-up a few milliseconds; checkers read this
if TYPE_CHECKING:
    from typing import BinaryIO

# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class UnreadableFile(UsageError):
    """A file that may not or cannot be read: outside the allow-list, not a regular file, too large."""


def inside(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def open_regular(path: str | os.PathLike, roots: tuple[Path, ...] | None = None) -> BinaryIO:
    """A binary reader of the regular file at `path`; with `roots`, its real path must lie inside one.

    Raises UnreadableFile naming the problem (OSError stays OSError for the callers that report it)."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path} is not a regular file ({_kind(info.st_mode)}); only regular files are read")
        if roots is not None:
            real = real_path(fd, path)
            if not inside(real, roots):
                raise UnreadableFile(
                    f"{path} leads outside the allowed directories (to {real}), through a symlink; allowed: "
                    + ", ".join(str(r) for r in roots)
                )
        return io.open(fd, "rb", closefd=True)  # noqa: UP020 - from a descriptor, not a path
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | os.PathLike, limit: int, roots: tuple[Path, ...] | None = None,
                 what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes (see open_regular); larger is UnreadableFile."""
    with open_regular(path, roots) as handle:
        size = os.fstat(handle.fileno()).st_size
        data = b"" if size > limit else handle.read(limit + 1)  # +1: a file growing past the limit is caught
    if size > limit or len(data) > limit:
        raise UnreadableFile(
            f"{path} is {max(size, len(data)):,} bytes, over the {limit:,}-byte limit for a {what}; "
            "pass a smaller file (or split it)"
        )
    return data


def real_path(fd: int, opened_as: str | os.PathLike) -> Path:
    """Where an open descriptor really points: /proc on Linux, F_GETPATH on macOS.

    Elsewhere the path is resolved again and must name the same file (device and inode) as the
    descriptor; a swap in between makes the two differ and the read is refused."""
    if sys.platform.startswith("linux"):
        try:
            return Path(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    if sys.platform == "darwin":
        import fcntl

        try:
            raw = fcntl.fcntl(fd, getattr(fcntl, "F_GETPATH", 50), b"\0" * 1024)
            return Path(os.fsdecode(raw.rstrip(b"\0")))
        except OSError:
            pass
    resolved = Path(os.path.realpath(opened_as))
    opened, now = os.fstat(fd), os.stat(resolved)
    if (opened.st_dev, opened.st_ino) != (now.st_dev, now.st_ino):
        raise UnreadableFile(f"{opened_as} changed while it was being opened; try again")
    return resolved


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"
