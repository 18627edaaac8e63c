"""Regular expressions compiled when first needed, and skipped when the text lacks every literal a match
must contain.

Compiling the observation and concept patterns (about a hundred, most of them long alternations) costs more
than a whole triage call once the snapshot is on disk, while one description can reach only some of them.
For each pattern the snapshot stores its needles, worked out from the parsed pattern when the snapshot is
built: groups of literal strings such that every match contains one string of each group ("loss" or "cost",
and "stuck" or "plateau"). A text that lacks every string of some group cannot match, so the pattern is
neither compiled nor run. A pattern without known needles always runs."""

from __future__ import annotations

import re

_NEEDLES: dict[str, list[list[str]] | None] = {}  # pattern -> its needles (from the snapshot)


class LazyPattern:
    """A pattern's source, compiled on the first search of a text that holds one of its needles."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def _for(self, text: str) -> re.Pattern[str] | None:
        groups = _NEEDLES.get(self.pattern)
        if groups is not None and not all(any(needle in text for needle in group) for group in groups):
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


def remember(needles: dict[str, list[list[str]] | None]) -> None:
    """Needles worked out before (stored in the snapshot)."""
    _NEEDLES.update(needles)


def needles(pattern: str) -> list[list[str]] | None:
    """Groups of literal strings such that every match of `pattern` contains one string of each group (each
    sorted), or None when the pattern requires no literal (it then always runs). Reads the pattern with the
    re module's own parser."""
    try:
        from re import _constants as sre
        from re import _parser

        parsed = _parser.parse(pattern)
        if parsed.state.flags & sre.SRE_FLAG_IGNORECASE:
            return None
        groups = _required(list(parsed), sre)
    except Exception:  # noqa: BLE001 - a parser that changed shape: no needles, the pattern just runs
        return None
    unique = sorted({tuple(sorted(group)) for group in groups})
    return [list(group) for group in unique] or None


def _required(items: list, sre) -> list[set[str]]:
    """What every match of this sequence contains: a set of literals for each of its parts that requires one
    (a run of literal characters, a group, a branch whose every arm requires one, a part repeated at least
    once). A branch's arms are each reduced to their most selective set."""
    found: list[set[str]] = []
    run = ""
    for op, argument in items:
        if op is sre.LITERAL:
            run += chr(argument)
            continue
        if run:
            found.append({run})
            run = ""
        if op is sre.SUBPATTERN:
            _, added, _, inner = argument
            if not added & sre.SRE_FLAG_IGNORECASE:
                found += _required(list(inner), sre)
        elif op is sre.BRANCH:
            arms = [_most_selective(_required(list(arm), sre)) for arm in argument[1]]
            if all(arms):
                found.append(set().union(*arms))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, _, inner = argument
            if low >= 1:
                found += _required(list(inner), sre)
        # anything else (classes, any character, anchors, lookarounds, back-references) requires no literal
    if run:
        found.append({run})
    return found


def _most_selective(groups: list[set[str]]) -> set[str] | None:
    """The group whose shortest string is longest, then the one with the fewest strings."""
    return max(groups, key=lambda g: (min(len(n) for n in g), -len(g))) if groups else None
