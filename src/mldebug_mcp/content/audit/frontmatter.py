"""SKILL.md checks. The Agent Skills spec's own rules (frontmatter present and YAML, known keys, name format and
length, name = folder name, description length) are the spec's reference validator's, skills-ref; we add what it
leaves out: no '<' or '>' in the description (clients embed it in XML prompts) and the size budgets."""

from __future__ import annotations

from pathlib import Path

MAX_LINES = 500
MAX_TOKENS = 5000
SKILLS_REF_MISSING = ("cannot check SKILL.md against the Agent Skills spec: skills-ref is not installed "
                      "(pip install skills-ref)")


def estimate_tokens(text: str) -> int:
    """A conservative token estimate: the larger of chars/4 and words*4/3."""
    return max(len(text) // 4, len(text.split()) * 4 // 3)


def check_skill(text: str, expected_name: str) -> list[tuple[int, str]]:
    """(line, problem) pairs for a SKILL.md text whose skill folder will be named `expected_name`."""
    try:  # on first use: audit and install-skill only
        from skills_ref.errors import ParseError
        from skills_ref.parser import parse_frontmatter
        from skills_ref.validator import validate_metadata
    except ImportError:
        return [(1, SKILLS_REF_MISSING)]
    try:
        data, body = parse_frontmatter(text)
    except ParseError as exc:
        return [(1, str(exc))]
    # The folder under audit is skill/, so the name is checked against the folder it is installed as.
    problems = [(2, message) for message in validate_metadata(data, Path(expected_name))]
    description = data.get("description")
    if isinstance(description, str) and ("<" in description or ">" in description):
        problems.append((2, "description must not contain '<' or '>'"))
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        problems.append((MAX_LINES, f"SKILL.md has {lines} lines; the budget is {MAX_LINES}"))
    tokens = estimate_tokens(body)
    if tokens > MAX_TOKENS:
        problems.append((1, f"SKILL.md body is about {tokens} tokens; the budget is {MAX_TOKENS}"))
    return problems
