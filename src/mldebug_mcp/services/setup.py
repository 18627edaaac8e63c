"""Setting the tool up: audit the bundled content, install the skill, print a client's configuration."""

from __future__ import annotations

from pathlib import Path

from .. import content
from ..content.client_config import CLIENTS, Snippet, snippet
from ..errors import UsageError
from ..models.content import Problem

__all__ = ["CLIENTS", "audit", "client_config", "install"]


def audit(root: Path | None = None) -> list[Problem]:
    """Every defect in a content root (default: the bundled content); empty means clean."""
    from ..content.audit import audit_content  # markdown parsing: loaded only for the audit

    folder = root if root is not None else content.content_root()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give the folder holding skill/, refs/, evidence/")
    return audit_content(folder)


def install(dest: Path, force: bool = False) -> tuple[Path, str, list[str]]:
    """Install the skill into dest/<skill-name>: (folder, 'installed' | 'unchanged' | 'replaced', problems the
    Agent Skills validator reports, when it is installed)."""
    from ..content.skill_install import install_skill, validate_skill

    folder, status = install_skill(dest, force=force)
    return folder, status, validate_skill(folder)


def client_config(client: str) -> Snippet:
    """What registers the server with a client, and where it goes."""
    return snippet(client)
