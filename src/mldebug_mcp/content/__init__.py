"""The only place that knows where the bundled content (skill/, refs/, evidence/, examples/) lives.

In a built wheel the folders ship as ``mldebug_mcp/_content/<folder>``; in a source
checkout (editable install, tests) they sit at the repository root.  Everything else
asks this module, so the two layouts never leak into other code.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..errors import ContentError

FOLDERS = ("skill", "refs", "evidence")


@cache
def content_root() -> Path:
    """Directory holding skill/, refs/ and evidence/."""
    package = Path(__file__).resolve().parents[1]  # mldebug_mcp/, installed or in a checkout's src/
    bundled = package / "_content"
    if (bundled / "skill").is_dir():
        return bundled
    checkout = package.parents[1]
    if (checkout / "skill").is_dir() and (checkout / "evidence").is_dir():
        return checkout
    raise ContentError(
        "bundled content not found: expected mldebug_mcp/_content/ in the installed package "
        f"or skill/ and evidence/ beside src/ in a checkout (looked in {bundled} and {checkout}). "
        "Reinstall the package: pip install --force-reinstall mldebug-mcp"
    )


def skill_dir() -> Path:
    return content_root() / "skill"


def refs_dir() -> Path:
    return content_root() / "refs"


def evidence_dir() -> Path:
    return content_root() / "evidence"


def examples_dir() -> Path:
    """Bundled example training scripts (buggy and clean twins), used by `demo`."""
    return content_root() / "examples"
