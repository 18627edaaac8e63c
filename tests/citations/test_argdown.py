import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mldebug_mcp import content
from mldebug_mcp.citations.argdown import parse_argdown
from mldebug_mcp.errors import ArgdownSyntaxError

SAMPLE = """===
title: sample
===

// a comment
/* a block
   comment */

# Claims

[Assume a bug]: Training failures are usually bugs. #claim
  {credence: 0.85, reason: "two independent practitioners"}
  - <Source age>
  >< [Tuning first]

[Tuning first]: Tune hyperparameters first.
  -> [Assume a bug]

<Practitioners>: Practitioners report it.

(1) [jones/assume-a-bug]: People tune instead of suspecting a bug. #quote
(2) [goodfellow/parts-adapt]: Healthy parts hide broken ones. #quote
----
(3) [Assume a bug]

<Source age>: Most sources are old. #counter {credence: 0.4}

[Loss curves]: Curves summarise
  the whole system. #claim
  + [jones/loss-curves]
    +> [Other]
"""


def test_statements_arguments_and_data():
    m = parse_argdown(SAMPLE)
    assert m.frontmatter == {"title": "sample"}
    claim = m.statements["Assume a bug"]
    assert claim.tags == ["claim"]
    assert claim.data == {"credence": 0.85, "reason": "two independent practitioners"}
    assert claim.line == 11
    assert m.statements["Loss curves"].text == "Curves summarise the whole system. #claim"
    argument = m.arguments["Practitioners"]
    assert argument.premises == ["jones/assume-a-bug", "goodfellow/parts-adapt"]
    assert argument.conclusion == "Assume a bug"
    assert m.statements["jones/assume-a-bug"].tags == ["quote"]
    assert m.arguments["Source age"].data == {"credence": 0.4}
    assert m.arguments["Source age"].tags == ["counter"]


def test_relation_directions_follow_argdown():
    relations = parse_argdown(SAMPLE).relation_set()
    assert ("Source age", "Assume a bug", "attack") in relations  # "- <B>" below A: B attacks A
    assert ("Assume a bug", "Tuning first", "contradictory") in relations
    assert ("Tuning first", "Assume a bug", "attack") in relations  # "-> [B]" below A: A attacks B
    assert ("jones/loss-curves", "Loss curves", "support") in relations
    assert ("jones/loss-curves", "Other", "support") in relations  # nested: parent is the indented node
    assert len(relations) == 5


def test_support_implied_by_a_premise_conclusion_structure_is_not_repeated():
    text = "[C]: c.\n  + <A>\n\n<A>: a.\n\n(1) [P]: p.\n----\n(2) [C]\n"
    m = parse_argdown(text)
    assert m.arguments["A"].conclusion == "C"
    assert m.relation_set() == set()


def test_intermediate_conclusions_become_premises():
    text = "<A>: a.\n\n(1) [P]: p.\n----\n(2) [Q]: q.\n(3) [R]: r.\n----\n(4) [S]: s.\n"
    argument = parse_argdown(text).arguments["A"]
    assert argument.premises == ["P", "Q", "R"]
    assert argument.conclusion == "S"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("===\ntitle: x\n", 1, "never closed"),
        ("# Heading\n\n  + <B>\n", 3, "no statement or argument above"),
        ("+ [A]\n", 1, "must be indented"),
        ("(1) [P]: p.\n----\n(2) [C]\n", 1, "without an <Argument>"),
        ("<A>: a.\n\n(1) [P]: p.\n(3) [Q]: q.\n", 4, "numbered (3) where (2)"),
        ("<A>: a.\n\n(1) [P]: p.\n(2) [Q]: q.\n", 3, "no '----' line"),
        ("[A]: a. {credence: [0.5}\n", 1, "invalid YAML data"),
        ("[A]: a.\n  {reason: a: b}\n", 2, "invalid YAML data"),
        ("[Unclosed: text\n", 1, "unclosed title"),
        ("just some words\n", 1, "cannot read"),
        ("[A] text without colon\n", 1, "needs a colon"),
        ("/* never closed\n[A]: a.\n", 2, "unterminated"),
        ("<A>: a.\n\n(1) <B>\n----\n(2) [C]\n", 3, "must be a statement"),
    ],
)
def test_malformed_input_names_the_line(text, line, fragment):
    with pytest.raises(ArgdownSyntaxError) as info:
        parse_argdown(text)
    assert info.value.line == line, str(info.value)
    assert fragment in str(info.value)


def test_bundled_map_parses_and_follows_the_conventions():
    m = parse_argdown((content.evidence_dir() / "folklore.argdown").read_text(encoding="utf-8"))
    theses = [s for s in m.statements.values() if "thesis" in s.tags]
    assert len(theses) == 1
    claims = [s for s in m.statements.values() if "claim" in s.tags]
    assert len(claims) >= 30
    for claim in claims:
        assert isinstance(claim.data.get("credence"), int | float), claim.title
        assert 0 <= claim.data["credence"] <= 1 and claim.data.get("reason"), claim.title
    counters = [a for a in m.arguments.values() if "counter" in a.tags]
    assert counters, "the map must state counter-considerations"
    attacked = {(r.source, r.target) for r in m.relations if r.kind == "attack"}
    assert all((c.title, theses[0].title) in attacked for c in counters)


def _reference_json(path: Path) -> dict:
    npx = shutil.which("npx")
    if npx is None or shutil.which("node") is None:
        pytest.skip("Node.js/npx not installed: cannot run the reference parser @argdown/cli")
    proc = subprocess.run(
        [npx, "-y", "@argdown/cli@1.7.5", "json", "--silent", "--stdout", str(path)],
        capture_output=True, text=True, timeout=300,
    )
    if proc.returncode != 0 and not proc.stdout.strip():
        if "ENOTFOUND" in proc.stderr or "ETIMEDOUT" in proc.stderr or "EAI_AGAIN" in proc.stderr:
            pytest.skip(f"npm registry unreachable, cannot fetch @argdown/cli: {proc.stderr[-200:]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["sample", "bundled"])
def test_agrees_with_the_reference_implementation(which, tmp_path):
    if which == "sample":
        path = tmp_path / "sample.argdown"
        path.write_text(SAMPLE, encoding="utf-8")
    else:
        path = content.evidence_dir() / "folklore.argdown"
    reference = _reference_json(path)
    ours = parse_argdown(path.read_text(encoding="utf-8"))
    assert set(reference["statements"]) == set(ours.statements)
    assert set(reference["arguments"]) == set(ours.arguments)
    theirs = {(r["from"], r["to"], r["relationType"]) for r in reference["relations"]}
    assert theirs == ours.relation_set()
    for title, argument in ours.arguments.items():
        members = reference["arguments"][title]["members"]
        pcs = next((m["pcs"] for m in members if m.get("pcs")), [])
        assert [s["title"] for s in pcs if s["role"] != "main-conclusion"] == argument.premises, title
        conclusions = [s["title"] for s in pcs if s["role"] == "main-conclusion"]
        assert conclusions == ([argument.conclusion] if argument.conclusion else []), title
