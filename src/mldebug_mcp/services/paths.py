"""Allowed directories: the only places a tool may read user files from.

The server takes them from its configuration (``--allow-dir``, repeatable, or the
``MLDEBUG_ALLOW_DIRS`` environment variable, os.pathsep-separated), defaulting to the
working directory. Every path argument is resolved (symlinks followed) and must land
inside one of them; ``..`` components are refused outright so a request never depends
on how the filesystem happens to resolve them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

ENV_VAR = "MLDEBUG_ALLOW_DIRS"


@dataclass(frozen=True)
class AllowedDirs:
    roots: tuple[Path, ...]

    @classmethod
    def from_config(cls, dirs: list[str] | None = None, environ: dict[str, str] | None = None) -> AllowedDirs:
        """--allow-dir values win; else the environment variable; else the working directory."""
        env = os.environ if environ is None else environ
        raw = list(dirs or []) or [d for d in env.get(ENV_VAR, "").split(os.pathsep) if d.strip()]
        if not raw:
            raw = [os.getcwd()]
        roots = []
        for entry in raw:
            path = Path(entry).expanduser().resolve()
            if not path.is_dir():
                raise UsageError(f"allowed directory {entry!r} is not an existing folder; fix --allow-dir or {ENV_VAR}")
            roots.append(path)
        return cls(tuple(dict.fromkeys(roots)))

    def check(self, path: str) -> Path:
        """The resolved path if it lies inside an allowed directory; UsageError naming the fix otherwise."""
        if not path or not path.strip():
            raise UsageError("empty path: give a file or folder inside " + self.describe())
        if "\x00" in path:
            raise UsageError("path contains a NUL byte")
        candidate = Path(path).expanduser()
        if ".." in candidate.parts:
            raise UsageError(f"path {path!r} contains '..'; give a path inside {self.describe()} without '..'")
        if not candidate.is_absolute():
            candidate = self.roots[0] / candidate
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop
            raise UsageError(f"path {path[:200]!r} cannot be used: {getattr(exc, 'strerror', None) or exc}; give an "
                             f"existing path inside {self.describe()}") from exc
        if any(resolved.is_relative_to(root) for root in self.roots):
            return resolved
        literal_inside = any(candidate.absolute().is_relative_to(root) for root in self.roots)
        if literal_inside:
            raise UsageError(
                f"path {path!r} is a symlink (or lies under one) that leads outside the allowed directories "
                f"to {resolved}; allowed: {self.describe()}"
            )
        raise UsageError(
            f"path {path!r} is outside the allowed directories ({self.describe()}); start the server with "
            f"--allow-dir {resolved.parent} to allow it"
        )

    def describe(self) -> str:
        return ", ".join(str(r) for r in self.roots)
