"""A folder of TensorBoard event files: every file whose name holds "tfevents", in run order.

Files in sub-folders (Keras' train/ and validation/, one folder per run) prefix their tags with
the folder so that runs do not mix. Each file is opened through safe_read.open_regular, so a
FIFO, a device or a symlink leading outside the allowed directories is skipped with a note
naming it and why, never read and never waited on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import UsageError
from ..safe_read import UnreadableFile, open_regular
from .curve_points import Budget, Points
from .tfevents import read_event_file


def read_event_folder(path: Path, check_crc: bool | None, roots: tuple[Path, ...] | None, budget: Budget,
                      max_bytes: int) -> tuple[dict[str, Points], list[str], int]:
    """(series merged by tag, notes, number of files read); more than `max_bytes` of event files
    in all is an error."""
    notes: list[str] = []
    files = sorted(_event_files(path, notes), key=lambda p: _event_order(p, path))
    series: dict[str, Points] = {}
    read = total = 0
    for file in files:
        try:
            handle = open_regular(file, roots)
        except (UnreadableFile, OSError) as exc:
            notes.append(f"{file.relative_to(path).as_posix()}: skipped, {_skip_reason(exc, file)}")
            continue
        with handle, naming(file):
            size = os.fstat(handle.fileno()).st_size
            total += size
            if total > max_bytes:
                raise UnreadableFile(
                    f"{path}: the event files hold more than {max_bytes:,} bytes, the limit for a training log: "
                    "pass the folder of one run"
                )
            tags, file_notes = read_event_file(handle, size, check_crc, budget)
        read += 1
        notes += [f"{file.name}: {note}" for note in file_notes]
        prefix = file.parent.relative_to(path).as_posix()
        for tag, points in tags.items():
            name = tag if prefix == "." else f"{prefix}/{tag}"
            if name in series:
                series[name].extend(points)
            else:
                series[name] = points
    return series, notes, read


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """Name the file in the errors of the parsers, which do not know it (UnreadableFile already does)."""
    try:
        yield
    except UnreadableFile:
        raise
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None


def _event_files(path: Path, notes: list[str]) -> list[Path]:
    """Every non-folder whose name holds "tfevents" under `path`; a sub-folder that cannot be listed
    gets a note (Path.rglob skips it in silence). Symlinked folders are not entered."""
    def unlistable(exc: OSError) -> None:
        shown = Path(exc.filename).relative_to(path).as_posix() if exc.filename else "a folder"
        notes.append(f"{shown}/: skipped, cannot be listed ({why(exc)})")

    found = []
    for folder, dirnames, filenames in os.walk(path, onerror=unlistable):
        dirnames.sort()
        found += [Path(folder) / name for name in filenames if "tfevents" in name]
    return found


def why(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _skip_reason(exc: BaseException, file: Path) -> str:
    if isinstance(exc, UnreadableFile):
        return str(exc).removeprefix(str(file)).strip()  # the message starts with the path
    return f"cannot be read ({why(exc)})"


def _event_order(file: Path, root: Path) -> tuple[str, int, str]:
    """Folder, then the writer's start time in the name (events.out.tfevents.<unix time>.<host>...)."""
    parts = file.name.split(".")
    started = int(parts[3]) if len(parts) > 3 and parts[3].isascii() and parts[3].isdigit() else 0
    return file.parent.relative_to(root).as_posix(), started, file.name
