"""Regular expressions compiled when first needed, and skipped when the text lacks every literal a match
must contain.

Compiling the observation and concept patterns (about a hundred, most of them long alternations) costs more
than a whole triage call once the snapshot is on disk, while one description can reach only some of them.
For each pattern the snapshot stores its needles: literal strings one of which every match contains, worked
out from the parsed pattern when the snapshot is built. A text holding none of them cannot match, so the
pattern is neither compiled nor run. A pattern without known needles always runs."""

from __future__ import annotations

import re

_NEEDLES: dict[str, list[str] | None] = {}  # pattern -> its needles (from the snapshot)


class LazyPattern:
    """A pattern's source, compiled on the first search of a text that holds one of its needles."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def _for(self, text: str) -> re.Pattern[str] | None:
        needles = _NEEDLES.get(self.pattern)
        if needles is not None and not any(needle in text for needle in needles):
            return None
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        compiled = self._for(text)
        return compiled.search(text) if compiled is not None else None

    def finditer(self, text: str):
        compiled = self._for(text)
        return compiled.finditer(text) if compiled is not None else iter(())


def remember(needles: dict[str, list[str] | None]) -> None:
    """Needles worked out before (stored in the snapshot)."""
    _NEEDLES.update(needles)


def needles(pattern: str) -> list[str] | None:
    """Literal strings one of which every match of `pattern` contains (sorted), or None when the pattern
    gives no such set (it then always runs). Reads the pattern with the re module's own parser."""
    try:
        from re import _constants as sre
        from re import _parser

        parsed = _parser.parse(pattern)
        if parsed.state.flags & sre.SRE_FLAG_IGNORECASE:
            return None
        found = _required(list(parsed), sre)
    except Exception:  # noqa: BLE001 - a parser that changed shape: no needles, the pattern just runs
        return None
    return sorted(found) if found else None


def _required(items: list, sre) -> set[str] | None:
    """A set of literals one of which every match of this sequence contains: the most selective of what its
    parts require (a run of literal characters, a group, a branch whose every arm requires some, a part
    repeated at least once), or None."""
    candidates: list[set[str] | None] = []
    run = ""
    for op, argument in items:
        if op is sre.LITERAL:
            run += chr(argument)
            continue
        if run:
            candidates.append({run})
            run = ""
        if op is sre.SUBPATTERN:
            _, added, _, inner = argument
            if not added & sre.SRE_FLAG_IGNORECASE:
                candidates.append(_required(list(inner), sre))
        elif op is sre.BRANCH:
            arms = [_required(list(arm), sre) for arm in argument[1]]
            if all(arms):
                candidates.append(set().union(*arms))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, _, inner = argument
            if low >= 1:
                candidates.append(_required(list(inner), sre))
        # anything else (classes, any character, anchors, lookarounds, back-references) requires no literal
    if run:
        candidates.append({run})
    found = [c for c in candidates if c]
    # The most selective: the longest shortest needle, then the fewest needles.
    return max(found, key=lambda c: (min(len(n) for n in c), -len(c))) if found else None
