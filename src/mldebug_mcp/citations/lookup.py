"""Quote lookup: by source key or excerpt id, by claim, or by free-text search (pure)."""

from __future__ import annotations

import re

from ..errors import UnknownKeyError, UsageError
from ..models.evidence import ClaimMatch, Quote
from .store import EvidenceStore

_STOPWORDS = frozenset(
    "a an the of to in on for and or is are be it its this that with as at by from your you do not "
    "if so we i they their them can will just than then into out up".split()
)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """Lowercased, stemmed content words: the unit of matching."""
    return [_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOPWORDS]


def score(query: str, document: str) -> float:
    """0..1: share of query terms present, plus a bonus when they appear as a phrase."""
    wanted = terms(query)
    if not wanted:
        return 0.0
    have = set(terms(document))
    hits = sum(1 for t in wanted if t in have)
    base = hits / len(wanted)
    phrase = " ".join(wanted)
    bonus = 0.25 if len(wanted) > 1 and phrase in " ".join(terms(document)) else 0.0
    return min(1.0, base * 0.8 + bonus)


def quotes_for_key(store: EvidenceStore, key: str) -> list[Quote]:
    """`jones` gives that source's excerpts; `jones/assume-a-bug` gives one."""
    key = key.strip().lower()
    if not key:
        raise UsageError("empty key: give a source key such as 'jones' or an excerpt id such as 'jones/assume-a-bug'")
    if "/" in key:
        if key not in store.excerpts:
            raise UnknownKeyError("excerpt id", key, _close(key, list(store.excerpts)))
        return [store.quote(key)]
    if key not in store.sources:
        raise UnknownKeyError("source key", key, _close(key, list(store.sources) + list(store.excerpts)))
    quotes = [store.quote(e.id) for e in store.excerpts_of(key)]
    if not quotes:
        raise UsageError(
            f"source {key!r} has no verified excerpts (no stored copy of its text could be checked); "
            f"its entry: `mldebug-mcp quote --list`. Claims citing it: `mldebug-mcp quote --claim ...`"
        )
    return quotes


def search_quotes(store: EvidenceStore, query: str, limit: int = 10) -> list[Quote]:
    """Excerpts ranked by how well their text (and id) matches the query."""
    _require_words(query)
    ranked = []
    for excerpt in store.excerpts.values():
        s = score(query, f"{excerpt.text} {excerpt.id.replace('-', ' ').replace('/', ' ')}")
        if s >= 0.4:
            ranked.append((s, excerpt.id))
    ranked.sort(key=lambda pair: (-pair[0], pair[1]))
    return [store.quote(eid) for _, eid in ranked[:limit]]


def match_claims(store: EvidenceStore, query: str, limit: int = 5) -> list[ClaimMatch]:
    """Claims of the evidence map ranked against the query, each with its supporting quotes."""
    _require_words(query)
    ranked = []
    for title in store.claims():
        statement = store.map.statements[title]
        s = score(query, f"{title} {statement.text}")
        if s >= 0.4:
            ranked.append((s, title))
    ranked.sort(key=lambda pair: (-pair[0], pair[1]))
    matches = []
    for s, title in ranked[:limit]:
        statement = store.map.statements[title]
        credence = statement.data.get("credence")
        matches.append(
            ClaimMatch(
                title=title, text=_strip_tags(statement.text), score=round(s, 3),
                credence=float(credence) if isinstance(credence, int | float) else None,
                credence_reason=statement.data.get("reason"),
                quotes=[store.quote(eid) for eid in store.supporting_excerpts(title)],
            )
        )
    return matches


def _strip_tags(text: str) -> str:
    return re.sub(r"\s*#[A-Za-z][\w-]*", "", text).strip()


def _require_words(query: str) -> None:
    if not terms(query):
        raise UsageError(f"search text {query!r} has no content words; try e.g. 'overfit a single batch'")


def _close(key: str, candidates: list[str]) -> list[str]:
    import difflib  # only for suggestions after a miss

    close = difflib.get_close_matches(key, candidates, n=5, cutoff=0.6)
    prefix = [c for c in candidates if c.startswith(key) and c not in close]
    return (close + prefix)[:5]
