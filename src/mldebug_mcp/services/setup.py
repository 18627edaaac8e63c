"""Setting the tool up: audit the bundled content, install the skill, print a client's configuration."""

from __future__ import annotations

from pathlib import Path

from .. import content
from ..content.client_config import CLIENTS, Snippet, snippet
from ..errors import UsageError
from ..models.content import Problem

__all__ = ["CLIENTS", "audit", "client_config", "example_config", "install", "installed_command"]


def audit(root: Path | None = None) -> list[Problem]:
    """Every defect in a content root (default: the bundled content); empty means clean."""
    from ..content.audit import (
        audit_content,  # markdown parsing: loaded only for the audit
    )

    folder = root if root is not None else content.content_root()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give the folder holding skill/, refs/, evidence/")
    return audit_content(folder)


def install(dest: Path, force: bool = False) -> tuple[Path, str, list[str]]:
    """Install the skill into dest/<skill-name>: (folder, 'installed' | 'unchanged' | 'replaced', problems the
    Agent Skills validator (skills-ref) reports)."""
    from ..content.skill_install import install_skill, validate_skill

    folder, status = install_skill(dest, force=force)
    return folder, status, validate_skill(folder)


def client_config(client: str, project: Path | None = None) -> Snippet:
    """What registers the installed server with a client, and where it goes: the executable by its absolute
    path, `project` (default: the working directory) as the folder its tools may read."""
    folder = (project or Path.cwd()).expanduser().resolve()
    if not folder.is_dir():
        raise UsageError(f"--project {project} is not a folder; give the project the tools should read")
    return snippet(client, installed_command(), str(folder))


def example_config(client: str) -> Snippet:
    """The snippet's shape for documentation: `mldebug-mcp` and a placeholder project folder."""
    return snippet(client)


def installed_command() -> str:
    """The absolute path of the `mldebug-mcp` executable that belongs to this installation."""
    import shutil
    import sys

    beside = Path(sys.executable).parent / ("mldebug-mcp.exe" if sys.platform == "win32" else "mldebug-mcp")
    if beside.is_file():
        return str(beside)
    found = shutil.which("mldebug-mcp")
    return str(Path(found).resolve()) if found else "mldebug-mcp"
