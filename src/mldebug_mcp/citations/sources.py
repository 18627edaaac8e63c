"""Read evidence/sources.yaml into Source models."""

from __future__ import annotations

import re

import yaml
from pydantic import ValidationError

from ..errors import ContentError
from ..models import Source

KEY_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


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
        try:
            sources[str(key)] = Source(key=str(key), **{k: _as_str(v) for k, v in entry.items()})
        except (ValidationError, TypeError) as exc:
            raise ContentError(f"source {key!r}: {_first_error(exc)}", path, line) from exc
    return sources


def _as_str(value: object) -> object:
    # YAML reads 2019 as an int; every field of a Source is text.
    return str(value) if isinstance(value, int | float) else value


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        return f"field {field!r}: {err['msg']}"
    return str(exc)


def _line_of_key(text: str, key: str) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return number
    return None
