"""One number, one value, one source: evidence/thresholds.yaml against the sheets.

Each threshold in the table names the quantity, its value and the excerpts it comes from, with narrow patterns
for the ways the sheets state it. Every sentence or table row of skill/*.md and refs/*.md outside code that
states one must give the table's value (or an equivalent spelling) and cite one of its sources in the same
sentence or row. Text in code blocks and inline code is not read (code picks its own numbers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from .. import markdown

TABLE = "thresholds.yaml"
NUM = r"[−-]?\d+(?:\.\d+)?(?:e[−-]?\d+)?"
_FIELDS = {"what", "value", "equivalents", "sources", "scope", "patterns"}
_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
# a sentence ends at . ! or ? followed by a space and a capital, a bracket or emphasis; not after e.g., i.e., al.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bal)(?<!\bvs)[.!?](?=\s+[A-Z(\[*_])")


@dataclass(frozen=True)
class Threshold:
    key: str
    what: str
    values: tuple[float, ...]
    sources: tuple[str, ...]
    scope: re.Pattern | None
    patterns: tuple[re.Pattern, ...]
    line: int


def load_thresholds(path: Path, known_excerpts: set[str] | None = None) -> tuple[list[Threshold], list[tuple[int, str]]]:
    """The table's thresholds and (line, problem) pairs for the entries that cannot be used."""
    if not path.is_file():
        return [], []
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return [], [((mark.line + 1) if mark else 0, f"not valid YAML: {exc}")]
    if not isinstance(data, dict):
        return [], [(1, "expected a mapping of threshold ids to entries")]
    # the line of each top-level key, for the problems' locations
    first_line = {row.split(":", 1)[0]: n for n, row in reversed(list(enumerate(text.splitlines(), 1))) if ":" in row}
    thresholds, problems = [], []
    for key, entry in data.items():
        line = first_line.get(str(key), 0)
        threshold, errors = _threshold(str(key), entry, line, known_excerpts)
        problems += [(line, f"threshold {key!r}: {error}") for error in errors]
        if threshold is not None:
            thresholds.append(threshold)
    return thresholds, problems


def _threshold(key: str, entry, line: int, known: set[str] | None) -> tuple[Threshold | None, list[str]]:
    if not isinstance(entry, dict):
        return None, ["expected a mapping"]
    errors = [f"unknown field {name!r}" for name in sorted(set(entry) - _FIELDS)]
    errors += [f"missing field {name!r}" for name in ("what", "value", "sources", "patterns") if name not in entry]
    if errors:
        return None, errors
    try:
        values = tuple(float(v) for v in [entry["value"], *(entry.get("equivalents") or [])])
    except (TypeError, ValueError):
        return None, ["value and equivalents must be numbers"]
    sources = tuple(str(s) for s in entry["sources"] or [])
    if not sources:
        errors.append("names no source")
    if known is not None:
        errors += [f"cites unknown excerpt [{s}]" for s in sources if s not in known]
    compiled = []
    for pattern in [entry.get("scope"), *(entry["patterns"] or [])]:
        if pattern is None:
            compiled.append(None)
            continue
        try:
            compiled.append(re.compile(str(pattern).replace("NUM", NUM)))
        except re.error as exc:
            errors.append(f"bad pattern {pattern!r}: {exc}")
    if errors:
        return None, errors
    scope, patterns = compiled[0], tuple(compiled[1:])
    if not patterns or any(p.groups != 1 for p in patterns):
        return None, ["each pattern needs exactly one group, the stated number"]
    return Threshold(key, str(entry["what"]), values, sources, scope, patterns, line), []


def units(text: str) -> Iterator[tuple[int, str]]:
    """(line, text) for every table row and every prose sentence outside code blocks and frontmatter."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0] == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i] == "---"), 0)
    paragraph: list[tuple[int, str]] = []
    in_code = False

    def flush() -> Iterator[tuple[int, str]]:
        if paragraph:
            yield from _sentences(paragraph)
            paragraph.clear()

    for number, line in enumerate(lines[start:], start=start + 1):
        if _FENCE.match(line):
            yield from flush()
            in_code = not in_code
            continue
        stripped = line.strip()
        if in_code or not stripped or stripped.startswith(("#", "<!--")):
            yield from flush()
            continue
        if stripped.startswith("|"):
            yield from flush()
            yield number, line
            continue
        if _LIST_ITEM.match(line):
            yield from flush()
        paragraph.append((number, line))
    yield from flush()


def _sentences(paragraph: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    text = "\n".join(line for _, line in paragraph)
    first = paragraph[0][0]
    begin = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        sentence = text[begin:end]
        if sentence.strip():
            offset = begin + len(sentence) - len(sentence.lstrip())
            yield first + text.count("\n", 0, offset), sentence.strip()
        begin = end


def _readable(unit: str) -> str:
    """The unit as read for numbers: inline code dropped, links reduced to their text, minus signs unified."""
    return _LINK.sub(r"\1", _CODE_SPAN.sub(" ", unit)).replace("−", "-")


def matches_value(stated: str, values: tuple[float, ...]) -> bool:
    """True when `stated` is one of `values`, exactly or as it rounded or cut to the stated decimals."""
    stated = stated.replace("−", "-")
    number = float(stated)
    mantissa = stated.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else None
    for value in values:
        if math.isclose(number, value, rel_tol=1e-9, abs_tol=1e-12):
            return True
        if decimals is not None and "e" not in stated.lower():
            scale = 10 ** decimals
            if number in (round(value, decimals), math.trunc(value * scale) / scale):
                return True
    return False


def check_document(text: str, thresholds: list[Threshold]) -> Iterator[tuple[int, str]]:
    """(line, problem) for each statement of a threshold with another value or without its source."""
    for line, unit in units(text):
        readable = _readable(unit)
        cited = {c.key for c in _citations(unit)}
        for threshold in thresholds:
            if threshold.scope is not None and not threshold.scope.search(readable):
                continue
            stated = [m.group(1) for p in threshold.patterns for m in p.finditer(readable)]
            if not stated:
                continue
            wrong = [s for s in stated if not matches_value(s, threshold.values)]
            for value in wrong:
                yield line, (f"states {threshold.what} as {value.replace('−', '-')}; evidence/{TABLE} has "
                             f"{_show(threshold.values[0])} [{threshold.sources[0]}] ({threshold.key})")
            if not _cites(cited, threshold.sources):
                yield line, (f"states {threshold.what} ({', '.join(stated)}) without citing its source "
                             f"({' '.join(f'[{s}]' for s in threshold.sources)}); see evidence/{TABLE}")


def _citations(unit: str) -> list[markdown.Citation]:
    return [markdown.Citation(key=m.group(1), line=0) for m in markdown.CITATION.finditer(_LINK.sub(r"\1", unit))]


def _cites(cited: set[str], sources: tuple[str, ...]) -> bool:
    keys = set(sources) | {s.split("/", 1)[0] for s in sources}
    return bool(cited & keys)


def _show(value: float) -> str:
    return f"{value:g}"
