"""Each file's lint outcome kept on disk between runs, so that an unchanged file is not parsed and checked again.

An agent lints after every edit, and most files of a project are the same as at the last run, while a large
project takes seconds to a minute to check. What is kept, and when it is used:

- An entry is keyed by the path as given and a digest of the file's text. The file is always read first, by the
  same bounded read and allow-list check as without the cache: only the parse and the checks are skipped.
- One JSON file per linter build, settings and project (the folder holding what the run names),
  `lint-<build>-<digest>.json` in the cache folder
  (cache_files.py; MLDEBUG_CACHE_DIR moves it, =off turns it off). The build digest covers the package version
  and the size and modification time of every module of the linter, so an upgrade or an edited rule starts
  afresh; the files of other builds are removed when one is written.
- Only a file's first pass is kept (its findings alone, the facts it tells other files, the names it asked
  about); the second pass, with other files' facts, is redone as before. Not kept: an outcome whose checks read
  other files (MLD053 reads the project's dependency files), notebooks, and files that do not parse.
- At most MAX_ENTRIES files per project and MAX_FILES projects, the least recently stored dropped first.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

from ..cache_files import cache_folder, digest, read_capped, remove_quietly, write_atomically
from ..models.lint import Finding

PREFIX = "lint-"
MAX_ENTRIES = 20_000  # files of one project
MAX_FILES = 64  # projects (and settings) kept, the least recently written dropped first
FINDING_FIELDS = {"code": str, "name": str, "path": str, "line": int, "col": int, "end_line": int, "end_col": int,
                  "severity": str, "message": str, "why": str, "fix": str, "evidence": str}


@functools.cache
def linter_build() -> str:
    """A digest of the version and of every linter module's size and modification time (one stat each)."""
    package = Path(__file__).resolve().parent
    stamps: list[str] = []
    for folder, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(f for f in filenames if f.endswith(".py")):
            info = os.stat(os.path.join(folder, name))
            stamps.append(f"{os.path.relpath(os.path.join(folder, name), package)}:{info.st_size}:{info.st_mtime_ns}")
    models = package.parent / "models" / "lint.py"  # the Finding an entry is read back into
    stamps.append(f"models:{models.stat().st_mtime_ns}")
    return digest(stamps, size=8)


def text_key(source: str) -> str:
    return digest([source], size=16)


class ResultCache:
    """The stored outcomes of one project's runs with one settings: `known(paths)` before checking, `store(...)`
    after. A file per project (the folder holding what a run names) keeps a small project's run from reading a
    large one's entries."""

    def __init__(self, settings, paths: list[Path]) -> None:
        folder = cache_folder()
        self.folder = folder
        where = _project_of(paths)
        self.path = None if folder is None else \
            folder / f"{PREFIX}{linter_build()}-{digest([repr(settings), where], size=8)}.json"
        self._entries: dict[str, list] | None = None

    def known(self, paths: list[Path]) -> dict[str, tuple[str, dict]]:
        """path as given -> (text digest, stored outcome) for the paths the cache holds."""
        entries = self._load()
        found: dict[str, tuple[str, dict]] = {}
        for path in paths:
            entry = entries.get(str(path))
            if type(entry) is list and len(entry) == 2 and type(entry[0]) is str and type(entry[1]) is dict:
                found[str(path)] = (entry[0], entry[1])
        return found

    def store(self, fresh: list[tuple[str, str, dict]]) -> None:
        """Keep (path, text digest, outcome) entries; written at once, the oldest dropped beyond MAX_ENTRIES."""
        if self.path is None or not fresh:
            return
        entries = self._load()
        for path, key, outcome in fresh:
            entries.pop(path, None)  # stored again: now the most recent
            entries[path] = [key, outcome]
        while len(entries) > MAX_ENTRIES:
            del entries[next(iter(entries))]
        data = json.dumps({"entries": entries}, separators=(",", ":")).encode("utf-8", "surrogatepass")
        if write_atomically(self.folder, self.path, data, PREFIX):
            _prune(self.folder, f"{PREFIX}{linter_build()}-")

    def _load(self) -> dict[str, list]:
        if self._entries is None:
            self._entries = {}
            data = None if self.path is None else read_capped(self.path)
            try:
                stored = json.loads(data) if data is not None else None
            except ValueError:  # not ours, or cut short: the run starts afresh
                stored = None
            if isinstance(stored, dict) and isinstance(stored.get("entries"), dict):
                self._entries = stored["entries"]
        return self._entries


def _project_of(paths: list[Path]) -> str:
    """The folder holding everything a run names (a file's own folder when one file is named)."""
    folders = [os.path.abspath(p if p.is_dir() else p.parent) for p in paths] or [os.getcwd()]
    try:
        return os.path.commonpath(folders)
    except ValueError:  # paths on different drives
        return folders[0]


def _prune(folder: Path, current: str) -> None:
    """Remove the files of other linter builds, and of this build all but the MAX_FILES most recently written."""
    mine = []
    for stored in folder.glob(f"{PREFIX}*.json"):
        if not stored.name.startswith(current):
            remove_quietly(stored)
            continue
        try:
            mine.append((stored.stat().st_mtime_ns, stored))
        except OSError:
            continue
    for _, stored in sorted(mine, reverse=True)[MAX_FILES:]:
        remove_quietly(stored)


def outcome_data(findings: list[Finding], returns: dict[str, str], asked: set[str],
                 untold: frozenset[tuple[str, str]]) -> dict:
    """A file's first-pass outcome as JSON-ready values (the engine's _FileOutcome)."""
    return {"findings": [{name: getattr(f, name) for name in FINDING_FIELDS} for f in findings], "returns": returns,
            "asked": sorted(asked), "untold": sorted(untold)}


def outcome_fields(data: dict) -> tuple[list[Finding], dict[str, str], set[str], frozenset] | None:
    """(findings, returns, asked, untold) read back from outcome_data, or None when the entry is not one this module
    wrote (a damaged or foreign cache file costs a check, never a wrong report)."""
    found, returns, asked, untold = (data.get(k) for k in ("findings", "returns", "asked", "untold"))
    if type(found) is not list or type(returns) is not dict or type(asked) is not list or type(untold) is not list:
        return None
    findings = [_restored_finding(f) for f in found]
    if None in findings or not all(type(k) is str and type(v) is str for k, v in returns.items()) \
            or not all(type(a) is str for a in asked) \
            or not all(type(t) is list and len(t) == 2 and all(type(p) is str for p in t) for t in untold):
        return None
    return findings, returns, set(asked), frozenset(tuple(t) for t in untold)


def _restored_finding(data: object) -> Finding | None:
    if type(data) is not dict or len(data) != len(FINDING_FIELDS):
        return None
    for name, kind in FINDING_FIELDS.items():
        if type(data.get(name)) is not kind:
            return None
    return Finding(**data)
