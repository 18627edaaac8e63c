"""Read evidence/sources.yaml into Source models."""

from __future__ import annotations

import re
from dataclasses import MISSING, fields

from .. import _yaml as yaml
from ..errors import ContentError
from ..models.evidence import Source

KEY_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_KNOWN = {f.name: f for f in fields(Source) if f.name != "key"}  # what an entry may give


def parse_sources(text: str, path: str = "evidence/sources.yaml") -> dict[str, Source]:
    """Parse the sources file; raise ContentError naming the bad entry."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise ContentError(f"invalid YAML: {exc}", path, None if line is None else line + 1) from exc
    if not isinstance(raw, dict):
        raise ContentError("expected a mapping of source keys to entries", path, 1)
    sources: dict[str, Source] = {}
    for key, entry in raw.items():
        line = _line_of_key(text, str(key))
        if not KEY_PATTERN.match(str(key)):
            raise ContentError(f"source key {key!r} must be lowercase words joined by hyphens", path, line)
        if not isinstance(entry, dict):
            raise ContentError(f"source {key!r} must be a mapping of fields", path, line)
        problem = _entry_problem(entry)
        if problem:
            raise ContentError(f"source {key!r}: {problem}", path, line)
        sources[str(key)] = Source(key=str(key), **{k: _as_str(v) for k, v in entry.items() if k in _KNOWN})
    return sources


def _as_str(value: object) -> object:
    # YAML reads 2019 as an int; every field of a Source is text.
    return str(value) if isinstance(value, int | float) else value


def _entry_problem(entry: dict) -> str | None:
    """What is wrong with a source's known fields (missing, not text), or None. Other keys are ignored, so
    an audit can still report what is missing when a field is misspelt."""
    missing = [name for name, f in _KNOWN.items() if f.default is MISSING and name not in entry]
    if missing:
        return f"missing field(s) {', '.join(map(repr, missing))}"
    wrong = next((name for name, value in entry.items() if name in _KNOWN and not isinstance(_as_str(value), str)
                  and not (value is None and _KNOWN[name].default is None)), None)
    return f"field {wrong!r}: expected text, got {type(entry[wrong]).__name__}" if wrong else None


def _line_of_key(text: str, key: str) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    return None
