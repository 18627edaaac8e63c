"""A folder of TensorBoard event files: the files of one run (curve_runs), merged by tag in run order.

Files in sub-folders of the run (Keras' train/ and validation/) prefix their tags with the
sub-folder, so that the halves of a run do not mix. Each file is opened through
safe_read.open_regular, so a FIFO, a device or a symlink leading outside the allowed directories
is skipped with a note naming it and why, never read and never waited on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..safe_read import UnreadableFile, open_regular
from .curve_points import Budget, Points
from .curve_runs import (
    ROOT_RUN,
    choose_run,
    group_runs,
    run_name,
    runs_note,
    start_time,
)
from .tfevents import read_event_file


@dataclass
class EventFolder:
    """What was read from a folder: the series of one run by tag, notes, and which run that was."""

    series: dict[str, Points] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    files_read: int = 0
    run: str | None = None  # the run read, when the folder holds event files
    other_runs: tuple[str, ...] = ()  # the runs left out


def read_event_folder(path: Path, check_crc: bool | None, roots: tuple[Path, ...] | None, budget: Budget,
                      max_bytes: int, run: str | None = None) -> EventFolder:
    """The series of one run of the folder (`run`, or the most recent); more than `max_bytes` of
    event files in that run is an error."""
    result = EventFolder()
    runs = group_runs(path, _event_files(path, result.notes))
    if not runs:
        return result
    chosen = choose_run(runs, run, path)
    result.run = chosen.name
    result.other_runs = tuple(r.name for r in runs if r is not chosen)
    if result.other_runs:
        result.notes.append(runs_note(chosen, runs, asked=run is not None))
    total = 0
    for file in sorted(chosen.files, key=lambda f: (run_name(chosen.folder, f.parent), start_time(f), f.name)):
        try:
            handle = open_regular(file, roots)
        except (UnreadableFile, OSError) as exc:
            result.notes.append(f"{file.relative_to(path).as_posix()}: skipped, {_skip_reason(exc, file)}")
            continue
        with handle, naming(file):
            size = os.fstat(handle.fileno()).st_size
            total += size
            if total > max_bytes:
                raise UnreadableFile(
                    f"{path}: the event files of run {chosen.name!r} hold more than {max_bytes:,} bytes, the limit "
                    "for a training log: pass a folder holding fewer of them"
                )
            tags, file_notes = read_event_file(handle, size, check_crc, budget)
        result.files_read += 1
        result.notes += [f"{file.name}: {note}" for note in file_notes]
        _merge(result.series, tags, run_name(chosen.folder, file.parent))
    return result


def _merge(series: dict[str, Points], tags: dict[str, Points], prefix: str) -> None:
    """Add one file's series, its tags prefixed by its sub-folder in the run (none in the run's own folder)."""
    for tag, points in tags.items():
        name = tag if prefix == ROOT_RUN else f"{prefix}/{tag}"
        if name in series:
            series[name].extend(points)
        else:
            series[name] = points


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
