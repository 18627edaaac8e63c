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
from collections.abc import Callable
from pathlib import Path

from ..cache_files import CACHE_ENV, MAX_BYTES, cache_folder, digest, read_capped, remove_quietly, write_atomically
from .text_table import pack, unpack

__all__ = ["CACHE_ENV", "MAX_BYTES", "cache_folder", "digest", "load_or_build"]
PREFIX = "triage-index-"


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
    data = read_capped(path, MAX_BYTES)
    if data is None:
        return None
    try:
        if table is None:
            state = json.loads(data)
            return state if isinstance(state, dict) else None
        cut = data.find(b"\n")
        header = json.loads(data[:cut]) if cut > 0 else None
    except ValueError:
        return None
    if not isinstance(header, dict) or not isinstance(header.get("state"), dict):
        return None
    texts = unpack(header.get("table"), memoryview(data)[cut + 1:])
    return None if texts is None else {**header["state"], table: texts}


def _write(folder: Path, path: Path, state: dict, prefix: str, table: str | None) -> None:
    if table is None:
        data = json.dumps(state, separators=(",", ":")).encode("utf-8")
    else:  # one line of JSON (which escapes every newline), then the table's block
        fields, body = pack(state[table])
        rest = {k: v for k, v in state.items() if k != table}
        data = json.dumps({"state": rest, "table": fields}, separators=(",", ":")).encode("utf-8") + b"\n" + body
    if not write_atomically(folder, path, data, prefix):
        return
    for stale in folder.glob(f"{prefix}*.json"):
        if stale != path:
            remove_quietly(stale)
