"""Whether the linted project pins torch below 1.9 (MLD053). Since PyTorch 1.9 every DataLoader worker reseeds
NumPy's global generator from its own base seed, so np.random draws in a Dataset differ across workers; only a
project held to an older torch still repeats them. Read from the project's dependency files (requirements*.txt,
setup.py, setup.cfg, pyproject.toml, environment.yml) in the file's folder and the folders above it: only regular
files, at most MAX_BYTES each, and with the run's allow-list (`roots`) never a folder or file outside it."""

import os
import re
from pathlib import Path

from ...safe_read import UnreadableFile, inside, read_bounded

DEPENDENCY_FILES = re.compile(r"requirements.*\.txt|setup\.py|setup\.cfg|pyproject\.toml|environment\.ya?ml")
# `torch==1.8.1`, `torch>=1.4,<1.9`, `pytorch=1.7` (conda), not torchvision nor pytorch-lightning
TORCH_SPEC = re.compile(r"(?<![\w.-])(?:py)?torch(?![\w.-])\s*(\[[^\]]*\])?\s*((?:(?:==|=|~=|<=|<|>=|>|!=)\s*v?[\d.*]+"
                        r"\s*,?\s*)+)")
BOUND = re.compile(r"(==|=|~=|<=|<|>=|>|!=)\s*v?(\d+)(?:\.(\d+))?(\.\d+)?")
RESEEDING = (1, 9)  # the first torch whose workers reseed NumPy
FOLDERS_UP = 6
MAX_BYTES = 200_000  # a dependency file larger than this is not one


def pins_old_torch(path: str, roots: tuple[Path, ...] | None = None) -> str | None:
    """The dependency file (and its spec) holding this file's project below torch 1.9, or None. Source text with
    no file behind it has no project to read. Not cached: a long-running server must see an edited file."""
    if not os.path.isfile(path):
        return None
    folder = Path(os.path.realpath(path)).parent  # the real folders, so the allow-list check holds through links
    for _ in range(FOLDERS_UP):
        if roots is not None and not inside(folder, roots):
            return None
        found = _pinned_in(folder, roots)
        if found:
            return found
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


def _pinned_in(folder: Path, roots: tuple[Path, ...] | None) -> str | None:
    try:
        names = sorted(n for n in os.listdir(folder) if DEPENDENCY_FILES.fullmatch(n))
    except OSError:
        return None
    for name in names:
        try:  # a FIFO or device named like a dependency file is skipped, never waited on
            text = read_bounded(folder / name, MAX_BYTES, roots, "dependency file").decode("utf-8", "replace")
        except (OSError, UnreadableFile):
            continue
        for match in TORCH_SPEC.finditer(text):
            if _below_reseeding(match.group(2)):
                return f"{name}: {match.group(0).strip()}"
    return None


def _below_reseeding(spec: str) -> bool:
    """Every version the spec allows is older than 1.9: an exact or compatible pin to 1.x<1.9, or an upper bound
    at or below 1.9 (`<1.9`, `<=1.8.1`)."""
    for op, major, minor, patch in BOUND.findall(spec):
        version = (int(major), int(minor or 0))
        if op == "~=" and not patch:
            continue  # PEP 440: ~=1.8 is >=1.8, ==1.*, which allows 1.9 and later; ~=1.8.1 stays within 1.8
        if op in ("==", "=", "~=", "<=") and version < RESEEDING:
            return True
        if op == "<" and version <= RESEEDING:
            return True
    return False
