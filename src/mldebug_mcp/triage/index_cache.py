"""What triage computes from its bundled data (the cause index, the snapshot), kept on disk between processes.

Building the index tokenises and stems about five thousand texts (over a second of CPU), while the
catalogue changes only with a release or an edit. So the built state is stored as JSON in the user's
cache folder, named by a digest of everything that decides its content: the catalogue's YAML texts and
the source of the modules that turn text into vectors. Any edit to either gives a new name, and the
stale files (of the same prefix) are removed when the new one is written. JSON, not pickle: a file in a
shared cache folder must never be able to run code. A cache that cannot be read or written only costs the build time.

MLDEBUG_CACHE_DIR moves the folder; MLDEBUG_CACHE_DIR=off turns the cache off."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .._version import __version__
from .text_table import pack, unpack

try:  # hashlib's own BLAKE2, without the OpenSSL that importing hashlib loads (more than a cold triage call's work)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

CACHE_ENV = "MLDEBUG_CACHE_DIR"
PREFIX = "triage-index-"
MAX_BYTES = 64 * 1024 * 1024  # a cache file larger than this was not written by us


def digest(texts: Iterable[str | bytes]) -> str:
    """A digest of the texts (or file contents as bytes), in order, each length-prefixed so that no two
    lists collide."""
    h = blake2b(__version__.encode(), digest_size=12)
    for text in texts:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def cache_folder() -> Path | None:
    """Where index files live, or None when caching is off."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() in {"off", "0", "none", "false"}:
        return None
    if chosen:
        return Path(chosen).expanduser()
    if sys.platform.startswith("linux"):
        # What platformdirs answers on Linux, without its import (a tenth of a cold triage call).
        return Path(os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")) / "mldebug-mcp"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("mldebug-mcp", appauthor=False))


def load_or_build(key: str, build: Callable[[], dict], valid: Callable[[dict], bool], prefix: str = PREFIX,
                  table: str | None = None) -> dict:
    """The state stored under `key` when it is there and `valid` accepts it; otherwise `build()`, stored
    (replacing the older files of the same prefix). `table` names a key of the state that holds a large
    str -> str table: it is stored as one block after the rest and comes back as a TextTable (text_table.py),
    each value decoded when asked for."""
    folder = cache_folder()
    if folder is None:
        return build()
    path = folder / f"{prefix}{key}.json"
    state = _read(path, table)
    if state is not None and valid(state):
        return state
    state = build()
    _write(folder, path, state, prefix, table)
    return state


def _read(path: Path, table: str | None) -> dict | None:
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_BYTES:
                return None
            data = handle.read(MAX_BYTES + 1)
        if table is None:
            state = json.loads(data)
            return state if isinstance(state, dict) else None
        cut = data.find(b"\n")
        header = json.loads(data[:cut]) if cut > 0 else None
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or not isinstance(header.get("state"), dict):
        return None
    texts = unpack(header.get("table"), memoryview(data)[cut + 1:])
    return None if texts is None else {**header["state"], table: texts}


def _write(folder: Path, path: Path, state: dict, prefix: str, table: str | None) -> None:
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    except OSError:
        return
    if table is None:
        data = json.dumps(state, separators=(",", ":")).encode("utf-8")
    else:  # one line of JSON (which escapes every newline), then the table's block
        fields, body = pack(state[table])
        rest = {k: v for k, v in state.items() if k != table}
        data = json.dumps({"state": rest, "table": fields}, separators=(",", ":")).encode("utf-8") + b"\n" + body
    try:
        # Written beside the target and renamed over it: a reader never sees half a file.
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        _remove(Path(temporary))
        return
    for stale in folder.glob(f"{prefix}*.json"):
        if stale != path:
            _remove(stale)


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass
