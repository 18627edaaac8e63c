"""The evidence store: sources, excerpts and the evidence map, loaded once and cross-linked."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..models.evidence import Excerpt, Quote, Source
from .argdown import ArgdownMap, parse_argdown
from .excerpts import parse_excerpt_file
from .sources import parse_sources

MAP_FILE = "folklore.argdown"
CLAIM_TAG = "claim"


@dataclass
class EvidenceStore:
    sources: dict[str, Source]
    excerpts: dict[str, Excerpt]
    map: ArgdownMap
    # excerpt id -> titles of the claims it supports (directly or through an argument)
    claims_by_excerpt: dict[str, list[str]] = field(default_factory=dict)

    def quote(self, excerpt_id: str) -> Quote:
        excerpt = self.excerpts[excerpt_id]
        source = self.sources[excerpt.source]
        return Quote(
            id=excerpt.id, source=source.key, author=source.author, title=source.title, year=source.year,
            url=source.url, locator=excerpt.locator, text=excerpt.text,
            claims=self.claims_by_excerpt.get(excerpt.id, []),
        )

    def excerpts_of(self, source_key: str) -> list[Excerpt]:
        return [e for e in self.excerpts.values() if e.source == source_key]

    def claims(self) -> list[str]:
        return [t for t, s in self.map.statements.items() if CLAIM_TAG in s.tags]

    def supporting_excerpts(self, claim: str) -> list[str]:
        return [eid for eid, claims in self.claims_by_excerpt.items() if claim in claims]


def build_store(evidence: Path) -> EvidenceStore:
    """Load and cross-link an evidence folder; ContentError on the first malformed file.

    Paths in messages and in `Excerpt.path` are relative to the folder's parent (the content root)."""
    sources_path = evidence / "sources.yaml"
    sources = parse_sources(sources_path.read_text(encoding="utf-8"), _shown(sources_path, evidence))
    excerpts: dict[str, Excerpt] = {}
    for path in sorted((evidence / "excerpts").glob("*.md")):
        for excerpt in parse_excerpt_file(path.read_text(encoding="utf-8"), path.stem, _shown(path, evidence)):
            excerpts[excerpt.id] = excerpt
    map_path = evidence / MAP_FILE
    argmap = parse_argdown(map_path.read_text(encoding="utf-8"), _shown(map_path, evidence))
    return EvidenceStore(sources, excerpts, argmap, _claims_by_excerpt(argmap, set(excerpts)))


def _claims_by_excerpt(argmap: ArgdownMap, excerpt_ids: set[str]) -> dict[str, list[str]]:
    """Which claims each excerpt backs: as a premise of an argument for the claim, or by a + relation."""
    claims = {t for t, s in argmap.statements.items() if CLAIM_TAG in s.tags}
    result: dict[str, list[str]] = {}

    def add(excerpt_id: str, claim: str) -> None:
        if excerpt_id in excerpt_ids and claim in claims:
            result.setdefault(excerpt_id, [])
            if claim not in result[excerpt_id]:
                result[excerpt_id].append(claim)

    for argument in argmap.arguments.values():
        if argument.conclusion:
            for premise in argument.premises:
                add(premise, argument.conclusion)
    for relation in argmap.relations:
        if relation.kind == "support" and relation.source_kind == "statement":
            add(relation.source, relation.target)
    return result


def _shown(path: Path, evidence: Path) -> str:
    return path.relative_to(evidence.parent).as_posix()
