"""Run every content check over a content root (skill/, refs/, evidence/) and list the problems."""

from __future__ import annotations

from pathlib import Path

from ...citations.excerpts import is_shortening_of
from ...citations.store import MAP_FILE, EvidenceStore, build_store
from ...errors import ContentError
from ...models.content import Problem
from .. import markdown
from .frontmatter import check_skill
from .thresholds import TABLE, check_document, load_thresholds

SKILL_NAME = "ml-debug"
QUOTE_TAG = "quote"


def audit_content(root: Path, skill_name: str = SKILL_NAME) -> list[Problem]:
    """Every defect found under `root`, sorted by file and line; empty means clean."""
    problems: list[Problem] = []

    def add(path: Path, line: int, message: str) -> None:
        problems.append(Problem(path=path.relative_to(root).as_posix(), line=line, message=message))

    skill = root / "skill" / "SKILL.md"
    if skill.is_file():
        for line, message in check_skill(skill.read_text(encoding="utf-8"), skill_name):
            add(skill, line, message)
    else:
        problems.append(Problem(path="skill/SKILL.md", line=0, message="missing: the skill's entry point"))

    store = _load_store(root, add)
    documents = sorted((root / "skill").glob("*.md")) + sorted((root / "refs").glob("*.md"))
    cited_sources: set[str] = set()
    for doc in documents:
        cited_sources |= _check_document(doc, root, store, add)
    table = root / "evidence" / TABLE
    thresholds, table_problems = load_thresholds(table, set(store.excerpts) if store is not None else None)
    for line, message in table_problems:
        add(table, line, message)
    for doc in documents:
        for line, message in check_document(doc.read_text(encoding="utf-8"), thresholds):
            add(doc, line, message)
    if store is not None:
        _check_evidence(root, store, cited_sources, add)
    return sorted(problems, key=lambda p: (p.path, p.line, p.message))


def _load_store(root: Path, add) -> EvidenceStore | None:
    evidence = root / "evidence"
    try:
        return build_store(evidence)
    except ContentError as exc:
        path = Path(exc.path) if exc.path else evidence
        target = path if path.is_absolute() else _locate(root, path)
        add(target, exc.line or 0, str(exc).split(": ", 1)[-1] if exc.path else str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        add(evidence, 0, f"cannot read the evidence folder: {exc}")
    return None


def _locate(root: Path, path: Path) -> Path:
    candidate = root / path
    return candidate if candidate.exists() else root / "evidence" / path.name


def _check_document(doc: Path, root: Path, store: EvidenceStore | None, add) -> set[str]:
    text = doc.read_text(encoding="utf-8")
    for link in markdown.links(text):
        _check_link(doc, root, link, add)
    cited: set[str] = set()
    if store is None:
        return cited
    for citation in markdown.citations(text):
        key = citation.key
        if "/" in key:
            if key not in store.excerpts:
                add(doc, citation.line, f"cites unknown excerpt [{key}]; see `mldebug-mcp quote --list`")
            cited.add(key.split("/", 1)[0])
        elif key in store.sources:
            cited.add(key)
        elif _looks_like_citation(key):
            add(doc, citation.line, f"cites unknown source [{key}]; add it to evidence/sources.yaml or fix the key")
    for quote in markdown.blockquotes(text):
        _check_quote(doc, quote, store, add)
    return cited


def _looks_like_citation(key: str) -> bool:
    # Bracketed words in prose that are not citations: checkbox marks, ellipses, option names.
    return key not in {"x", "...", "n"} and not key.isdigit()


def _check_link(doc: Path, root: Path, link: markdown.Link, add) -> None:
    target = link.target
    if not target or target.startswith(("http://", "https://", "mailto:")):
        return
    path_part, _, anchor = target.partition("#")
    destination = (doc.parent / path_part).resolve() if path_part else doc.resolve()
    if path_part and not destination.exists():
        add(doc, link.line, f"link target {path_part!r} does not exist")
        return
    if not destination.resolve().is_relative_to(root.resolve()):
        add(doc, link.line, f"link {target!r} leaves the content folders; it would break in the installed skill")
        return
    if anchor and destination.suffix == ".md":
        if anchor not in markdown.anchors(destination.read_text(encoding="utf-8")):
            add(doc, link.line, f"anchor #{anchor} not found in {destination.name}")


def _check_quote(doc: Path, quote: markdown.BlockQuote, store: EvidenceStore, add) -> None:
    found = markdown.CITATION.search(quote.text.rstrip()[-80:]) if quote.text.rstrip().endswith("]") else None
    if not found or "/" not in found.group(1):
        add(doc, quote.line, "blockquote without an excerpt id at its end: quotes must end with [source/slug]")
        return
    excerpt_id = found.group(1)
    excerpt = store.excerpts.get(excerpt_id)
    if excerpt is None:
        return  # already reported as an unknown citation
    quoted = quote.text.rstrip()[: -len(found.group(0))].strip().strip("\"“”")
    if not is_shortening_of(quoted, excerpt.text):
        add(doc, quote.line, f"quote is not verbatim from [{excerpt_id}] (only [...] cuts are allowed)")


def _check_evidence(root: Path, store: EvidenceStore, cited_sources: set[str], add) -> None:
    evidence = root / "evidence"
    map_path = evidence / MAP_FILE
    map_quotes = {t for t, s in store.map.statements.items() if QUOTE_TAG in s.tags}
    for title in sorted(map_quotes - set(store.excerpts)):
        add(map_path, store.map.statements[title].line, f"#quote statement [{title}] names no excerpt")
    for excerpt in store.excerpts.values():
        path = root / excerpt.path if (root / excerpt.path).exists() else evidence / "excerpts" / f"{excerpt.source}.md"
        if excerpt.source not in store.sources:
            add(path, excerpt.line, f"excerpt file for unknown source {excerpt.source!r}")
        if excerpt.id not in map_quotes:
            add(path, excerpt.line, f"excerpt {excerpt.id} is not cited by the evidence map ({MAP_FILE})")
    map_sources = {t.split("/", 1)[0] for t in map_quotes}
    map_sources |= {str(s.data.get("source")) for s in store.map.statements.values() if s.data.get("source")}
    sources_path = evidence / "sources.yaml"
    for key, source in store.sources.items():
        used = key in cited_sources or key in map_sources or bool(store.excerpts_of(key))
        if not used:
            add(sources_path, _line_of(sources_path, key), f"orphan source {key!r}: nothing cites it")
        if store.excerpts_of(key) and not source.verified_against:
            add(sources_path, _line_of(sources_path, key), f"source {key!r} has excerpts but no verified_against")
    for title in store.claims():
        if not store.supporting_excerpts(title) and not store.map.statements[title].data.get("source"):
            add(map_path, store.map.statements[title].line, f"claim [{title}] has no supporting excerpt or source")


def _line_of(path: Path, key: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    return 0
