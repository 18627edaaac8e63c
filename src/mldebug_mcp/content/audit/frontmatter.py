"""SKILL.md frontmatter and size budget, per the Agent Skills spec."""

from __future__ import annotations

import re

from ... import _yaml as yaml

ALLOWED_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_LINES = 500
MAX_TOKENS = 5000


def split_frontmatter(text: str) -> tuple[dict | None, str, str | None]:
    """(frontmatter, body, error). The frontmatter sits between leading '---' lines."""
    if not text.startswith("---\n"):
        return None, text, "no YAML frontmatter: the file must start with a '---' line"
    end = text.find("\n---\n", 4)
    if end < 0:
        return None, text, "frontmatter is not closed by a '---' line"
    try:
        data = yaml.safe_load(text[4:end])
    except yaml.YAMLError as exc:
        return None, text, f"frontmatter is not valid YAML: {exc}"
    if not isinstance(data, dict):
        return None, text, "frontmatter must be a YAML mapping"
    return data, text[end + 5 :], None


def estimate_tokens(text: str) -> int:
    """A conservative token estimate: the larger of chars/4 and words*4/3."""
    return max(len(text) // 4, len(text.split()) * 4 // 3)


def check_skill(text: str, expected_name: str) -> list[tuple[int, str]]:
    """(line, problem) pairs for a SKILL.md text."""
    data, body, error = split_frontmatter(text)
    if error:
        return [(1, error)]
    problems: list[tuple[int, str]] = []
    for key in sorted(set(data) - ALLOWED_KEYS):
        problems.append((2, f"frontmatter key {key!r} is not in the Agent Skills spec ({', '.join(sorted(ALLOWED_KEYS))})"))
    name = data.get("name")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > 64:
        problems.append((2, f"name {name!r} must be 1-64 chars of a-z, 0-9 and single hyphens"))
    elif name != expected_name:
        problems.append((2, f"name {name!r} must equal the skill folder name {expected_name!r}"))
    description = data.get("description")
    if not isinstance(description, str) or not 1 <= len(description) <= 1024:
        problems.append((2, "description must be 1-1024 characters saying what the skill does and when to use it"))
    elif "<" in description or ">" in description:
        problems.append((2, "description must not contain '<' or '>'"))
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        problems.append((MAX_LINES, f"SKILL.md has {lines} lines; the budget is {MAX_LINES}"))
    tokens = estimate_tokens(body)
    if tokens > MAX_TOKENS:
        problems.append((1, f"SKILL.md body is about {tokens} tokens; the budget is {MAX_TOKENS}"))
    return problems
