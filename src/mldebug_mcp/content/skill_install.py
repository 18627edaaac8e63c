"""Assemble an installable skill folder: SKILL.md, PLAYBOOK.md, references/, evidence/, links rewritten."""

from __future__ import annotations

import filecmp
import re
import shutil
import tempfile
from pathlib import Path

from .. import content
from ..errors import UsageError
from .audit.frontmatter import SKILLS_REF_MISSING

_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def skill_name() -> str:
    """The skill's name in the bundled SKILL.md; the installed folder is named after it."""
    try:
        from skills_ref import SkillError, read_properties
    except ImportError as exc:
        raise UsageError(SKILLS_REF_MISSING) from exc
    try:
        return read_properties(content.skill_dir()).name
    except SkillError as exc:
        raise UsageError(f"bundled SKILL.md has no valid name ({exc}); run `mldebug-mcp audit`") from exc


def _layout() -> dict[Path, Path]:
    """Bundled file -> path inside the installed skill folder."""
    mapping: dict[Path, Path] = {}
    for path in sorted(content.skill_dir().glob("*.md")):
        mapping[path.resolve()] = Path(path.name)
    for path in sorted(content.refs_dir().glob("*.md")):
        mapping[path.resolve()] = Path("references") / path.name
    evidence = content.evidence_dir()
    for path in sorted(evidence.rglob("*")):
        if path.is_file() and path.suffix in {".md", ".yaml", ".argdown"}:
            mapping[path.resolve()] = Path("evidence") / path.relative_to(evidence)
    return mapping


def _rewrite_links(text: str, source: Path, target: Path, mapping: dict[Path, Path]) -> str:
    def fix(m: re.Match) -> str:
        href = m.group(2)
        if href.startswith(("http://", "https://", "mailto:", "#")):
            return m.group(0)
        path_part, hash_, anchor = href.partition("#")
        linked = (source.parent / path_part).resolve()
        if linked not in mapping:
            return m.group(0)
        new = Path(_relpath(mapping[linked], target.parent))
        return f"{m.group(1)}{new.as_posix()}{hash_}{anchor}{m.group(3)}"

    return _LINK.sub(fix, text)


def _relpath(path: Path, start: Path) -> str:
    import os

    return os.path.relpath(path.as_posix(), start.as_posix() or ".")


def build_skill(folder: Path) -> None:
    """Write the skill's files into `folder` (which must be empty or absent)."""
    mapping = _layout()
    for source, relative in mapping.items():
        destination = folder / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".md":
            text = _rewrite_links(source.read_text(encoding="utf-8"), source, relative, mapping)
            destination.write_text(text, encoding="utf-8")
        else:
            shutil.copyfile(source, destination)


def _same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    if files_a != files_b:
        return False
    return all(filecmp.cmp(a / f, b / f, shallow=False) for f in files_a)


def install_skill(dest: Path, force: bool = False) -> tuple[Path, str]:
    """Install into dest/<skill-name>; returns (folder, 'installed' | 'unchanged' | 'replaced')."""
    folder = dest.expanduser() / skill_name()
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / folder.name
        build_skill(staged)
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"{folder} exists and is not a folder; remove it or choose another --dest")
            if _same_tree(staged, folder):
                return folder, "unchanged"
            if not force:
                raise UsageError(
                    f"{folder} already exists with different content; pass --force to replace it, "
                    "or choose another --dest"
                )
            shutil.rmtree(folder)
            status = "replaced"
        else:
            status = "installed"
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, folder)
    return folder, status


def validate_skill(folder: Path) -> list[str]:
    """Problems the Agent Skills reference validator (skills-ref) finds in an installed skill folder."""
    try:
        import skills_ref
    except ImportError:
        return [SKILLS_REF_MISSING]  # never a silent pass
    return list(skills_ref.validate(folder))
