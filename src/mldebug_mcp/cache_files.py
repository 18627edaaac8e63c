"""The user's cache folder and the file operations every on-disk cache of the package shares (triage's index,
lint's per-file outcomes): a digest that names what a file holds, an atomic write, a quiet removal.

JSON only, never pickle: a file in a shared cache folder must never be able to run code. A cache that cannot be
read or written only costs the work it would have saved. MLDEBUG_CACHE_DIR moves the folder;
MLDEBUG_CACHE_DIR=off turns every cache off."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from ._version import __version__

try:  # hashlib's own BLAKE2, without the OpenSSL that importing hashlib loads (more than a cold triage call's work)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

CACHE_ENV = "MLDEBUG_CACHE_DIR"
MAX_BYTES = 64 * 1024 * 1024  # a cache file larger than this was not written by us


def digest(texts: Iterable[str | bytes], size: int = 12) -> str:
    """A digest of the texts (or file contents as bytes), in order, each length-prefixed so that no two
    lists collide; the package version is part of it."""
    h = blake2b(__version__.encode(), digest_size=size)
    for text in texts:
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def cache_folder() -> Path | None:
    """Where cache files live, or None when caching is off."""
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


def read_capped(path: Path, limit: int = MAX_BYTES) -> bytes | None:
    """A cache file's bytes, or None when it is missing, unreadable or larger than any we write."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > limit:
                return None
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def write_atomically(folder: Path, path: Path, data: bytes, prefix: str) -> bool:
    """`data` written beside `path` and renamed over it, so a reader never sees half a file; False on failure."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        remove_quietly(Path(temporary))
        return False
    return True


def remove_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass
