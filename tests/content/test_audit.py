"""The audit passes on the bundled content and catches each kind of defect in a broken copy."""

import re
import sys
from pathlib import Path

import pytest

from mldebug_mcp import content
from mldebug_mcp.content.audit import audit_content


def _messages(root: Path) -> list[str]:
    return [f"{p.path}:{p.line}: {p.message}" for p in audit_content(root)]


def test_bundled_content_is_clean():
    assert _messages(content.content_root()) == []


def test_cli_audit_exit_codes(run_cli, content_copy):
    assert run_cli("audit").code == 0
    (content_copy / "refs" / "rl.md").write_text("# RL\n\nSee [nowhere](missing.md).\n", encoding="utf-8")
    result = run_cli("audit", "--root", str(content_copy))
    assert result.code == 1
    assert re.search(r"^refs/rl\.md:3: link target 'missing\.md' does not exist$", result.out, re.M)
    assert run_cli("audit", "--root", str(content_copy / "absent")).code == 2


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _append(path: Path, text: str) -> int:
    """Append text; return the line number its first line lands on."""
    before = path.read_text(encoding="utf-8")
    if not before.endswith("\n"):
        before += "\n"
    path.write_text(before + text, encoding="utf-8")
    return before.count("\n") + 1


def test_frontmatter_name_and_unknown_keys(content_copy):
    """The spec's own rules come from its reference validator, skills-ref."""
    skill = content_copy / "skill" / "SKILL.md"
    _edit(skill, "name: ml-debug", "name: ML_Debug\ncolour: blue")
    messages = _messages(content_copy)
    assert "skill/SKILL.md:2: Skill name 'ML_Debug' must be lowercase" in messages
    assert any(m.startswith("skill/SKILL.md:2: Skill name 'ML_Debug' contains invalid characters") for m in messages)
    assert "skill/SKILL.md:2: Directory name 'ml-debug' must match skill name 'ML_Debug'" in messages
    assert any(m.startswith("skill/SKILL.md:2: Unexpected fields in frontmatter: colour.") for m in messages)


def test_name_must_be_the_installed_folder_name(content_copy):
    _edit(content_copy / "skill" / "SKILL.md", "name: ml-debug", "name: ml-debugger")
    assert "skill/SKILL.md:2: Directory name 'ml-debug' must match skill name 'ml-debugger'" in _messages(content_copy)


def test_description_without_angle_brackets(content_copy):
    """Not a skills-ref rule: clients embed the description in XML prompts, so we keep this check."""
    _edit(content_copy / "skill" / "SKILL.md", "description: Debug ML", "description: <b>Debug</b> ML")
    assert "skill/SKILL.md:2: description must not contain '<' or '>'" in _messages(content_copy)


def test_missing_frontmatter(content_copy):
    skill = content_copy / "skill" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8").split("---\n", 2)[2], encoding="utf-8")
    assert "skill/SKILL.md:1: SKILL.md must start with YAML frontmatter (---)" in _messages(content_copy)


def test_without_skills_ref_the_audit_says_so_instead_of_passing(content_copy, monkeypatch):
    from mldebug_mcp.content.audit.frontmatter import SKILLS_REF_MISSING

    for name in ("skills_ref", "skills_ref.errors", "skills_ref.parser", "skills_ref.validator"):
        monkeypatch.setitem(sys.modules, name, None)  # makes `import skills_ref...` raise ImportError
    assert f"skill/SKILL.md:1: {SKILLS_REF_MISSING}" in _messages(content_copy)


def test_size_budget(content_copy):
    skill = content_copy / "skill" / "SKILL.md"
    _append(skill, "filler line\n" * 520)
    messages = _messages(content_copy)
    assert any("lines; the budget is 500" in m for m in messages)


def test_token_budget(content_copy):
    skill = content_copy / "skill" / "SKILL.md"
    _append(skill, ("word " * 400 + "\n") * 20)
    assert any("tokens; the budget is 5000" in m for m in _messages(content_copy))


def test_broken_link_and_anchor(content_copy):
    playbook = content_copy / "skill" / "PLAYBOOK.md"
    line = _append(playbook, "\nSee [sheet](../refs/absent.md) and [there](../refs/rl.md#no-such-heading).\n")
    messages = _messages(content_copy)
    assert f"skill/PLAYBOOK.md:{line + 1}: link target '../refs/absent.md' does not exist" in messages
    assert f"skill/PLAYBOOK.md:{line + 1}: anchor #no-such-heading not found in rl.md" in messages


def test_link_escaping_the_content_folders(content_copy):
    line = _append(content_copy / "refs" / "sweeps.md", "\n[readme](../../README.md)\n")
    (content_copy.parent / "README.md").write_text("x", encoding="utf-8")
    assert any(m.startswith(f"refs/sweeps.md:{line + 1}: link") and "leaves the content" in m
               for m in _messages(content_copy))


def test_unknown_citations(content_copy):
    line = _append(content_copy / "refs" / "rl.md", "\nAs shown [jones/no-such-excerpt] and [nobody-at-all].\n")
    messages = _messages(content_copy)
    assert f"refs/rl.md:{line + 1}: cites unknown excerpt [jones/no-such-excerpt]; see `mldebug-mcp quote --list`" in messages
    assert any(m.startswith(f"refs/rl.md:{line + 1}: cites unknown source [nobody-at-all]") for m in messages)


def test_citations_in_code_are_ignored(content_copy):
    _append(content_copy / "refs" / "rl.md", "\n`x[nobody-at-all]` and\n\n```\ny = z[not-a-source]\n```\n")
    assert _messages(content_copy) == []


def test_quote_not_verbatim(content_copy):
    line = _append(
        content_copy / "refs" / "rl.md",
        "\n> When their RL implementation fails, people often adjust the network. [jones/assume-a-bug]\n",
    )
    messages = _messages(content_copy)
    assert f"refs/rl.md:{line + 1}: quote is not verbatim from [jones/assume-a-bug] (only [...] cuts are allowed)" in messages


def test_verbatim_shortened_quote_passes(content_copy):
    _append(
        content_copy / "refs" / "rl.md",
        "\n> When their RL implementation doesn't work, people are often keen to either (a) adjust their "
        "network architecture or (b) adjust their hyperparameters. [...] Most often, it turns out they've got a bug. "
        "[jones/assume-a-bug]\n",
    )
    assert _messages(content_copy) == []


def test_blockquote_without_attribution(content_copy):
    line = _append(content_copy / "refs" / "rl.md", "\n> An unattributed saying.\n")
    assert f"refs/rl.md:{line + 1}: blockquote without an excerpt id at its end: quotes must end with [source/slug]" in _messages(content_copy)


def test_excerpt_not_cited_by_the_map(content_copy):
    line = _append(
        content_copy / "evidence" / "excerpts" / "jones.md",
        "\n## jones/uncited-excerpt\n\nlocator: nowhere\nchecked: nowhere\n\n> Some text.\n",
    )
    assert f"evidence/excerpts/jones.md:{line + 1}: excerpt jones/uncited-excerpt is not cited by the evidence map (folklore.argdown)" in _messages(content_copy)


def test_malformed_excerpt_file(content_copy):
    line = _append(content_copy / "evidence" / "excerpts" / "jones.md", "\n## Jones/Bad Id\n")
    assert any(m.startswith(f"evidence/excerpts/jones.md:{line + 1}: excerpt id 'Jones/Bad Id'")
               for m in _messages(content_copy))


def test_map_syntax_error(content_copy):
    line = _append(content_copy / "evidence" / "folklore.argdown", "\n[Unclosed claim: text\n")
    assert any(m.startswith(f"evidence/folklore.argdown:{line + 1}: unclosed title") for m in _messages(content_copy))


def test_map_quote_naming_no_excerpt(content_copy):
    line = _append(content_copy / "evidence" / "folklore.argdown",
                   "\n<Ghost>: g.\n\n(1) [jones/ghost]: nothing. #quote\n----\n(2) [Bug-first debugging]\n")
    assert f"evidence/folklore.argdown:{line + 3}: #quote statement [jones/ghost] names no excerpt" in _messages(content_copy)


def test_orphan_source_and_missing_verification(content_copy):
    sources = content_copy / "evidence" / "sources.yaml"
    line = _append(
        sources,
        "\nnobody:\n  author: N. Body\n  title: Nothing\n  year: 2020\n  url: https://example.org\n  kind: blog\n"
        "  credence: low\n  credence_reason: none\n  licence: none\n  verified_against: null\n",
    )
    _edit(sources, 'verified_against: "andyljones', 'verified_against_was: "andyljones')
    messages = _messages(content_copy)
    assert f"evidence/sources.yaml:{line + 1}: orphan source 'nobody': nothing cites it" in messages
    assert any("source 'jones' has excerpts but no verified_against" in m for m in messages)


def test_invalid_sources_file(content_copy):
    _edit(content_copy / "evidence" / "sources.yaml", "  author: Andy Jones\n", "")
    assert any(m.startswith("evidence/sources.yaml:") and "source 'jones'" in m and "author" in m
               for m in _messages(content_copy))


def test_claim_without_support(content_copy):
    line = _append(content_copy / "evidence" / "folklore.argdown",
                   '\n[Unsupported claim]: Nothing backs this. #claim\n  {credence: 0.5, reason: "none"}\n')
    assert f"evidence/folklore.argdown:{line + 1}: claim [Unsupported claim] has no supporting excerpt or source" in _messages(content_copy)


@pytest.mark.parametrize("folder", ["refs", "skill"])
def test_every_document_is_checked(content_copy, folder):
    doc = sorted((content_copy / folder).glob("*.md"))[-1]
    _append(doc, "\n[bad](nope.md)\n")
    assert any(m.startswith(f"{folder}/{doc.name}:") for m in _messages(content_copy))
