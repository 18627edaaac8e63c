"""The compact cause catalogue: every cause once, under its category, small enough to read in one go."""

from __future__ import annotations

import re

from mldebug_mcp.services.references import read_reference
from mldebug_mcp.services.triage import catalogue_index, triage
from mldebug_mcp.triage.catalogue import load_catalogue

LINE = re.compile(r"^([a-z0-9-]+) \| (.+?) \| (.+)$")


def test_every_cause_is_listed_once_with_its_title_under_its_category():
    catalogue = load_catalogue()
    category, seen = None, {}
    for line in catalogue_index().splitlines():
        if line.startswith("## "):
            category = line.rsplit("(", 1)[1].rstrip(")")
        elif m := LINE.match(line):
            assert m.group(1) not in seen, f"{m.group(1)} listed twice"
            seen[m.group(1)] = (category, m.group(2))
    assert seen == {c.id: (c.category, c.title) for c in catalogue.causes.values()}


def test_it_is_small_enough_to_read_in_one_go_and_states_its_size():
    text = catalogue_index()
    stated = int(re.search(r"about ([\d,]+) tokens", text).group(1).replace(",", ""))
    # 7,000 tokens: 133 causes at a line of about 190 characters each, one read for an agent's context; cutting the
    # signatures to fit a smaller budget would drop what tells two causes apart
    assert abs(stated - len(text) / 4) <= 100 and len(text) < 7000 * 4
    assert max(len(line) for line in text.splitlines()) < 400


def test_triage_adds_it_only_when_asked():
    assert triage("loss is nan after 300 steps").catalogue is None
    assert triage("loss is nan after 300 steps", include_catalogue=True).catalogue == catalogue_index()


def test_read_reference_causes_gives_the_index_and_a_section_still_gives_one_cause():
    outline = read_reference("causes")
    assert outline.text == catalogue_index() and outline.sections
    cause = next(iter(load_catalogue().causes.values()))
    section = read_reference("causes", cause.title)
    assert cause.id in section.text and "Fix:" in section.text


def test_the_size_the_tool_and_the_skill_state_is_the_real_one():
    from pathlib import Path

    import mldebug_mcp.server.triage as server_triage

    real = int(re.search(r"about ([\d,]+) tokens", catalogue_index()).group(1).replace(",", ""))
    skill = Path(__file__).resolve().parents[2] / "skill" / "SKILL.md"
    for text in (Path(server_triage.__file__).read_text(encoding="utf-8"), skill.read_text(encoding="utf-8")):
        stated = [int(n.replace(",", "")) for n in re.findall(r"about ([\d,]+) tokens", text)]
        assert stated and all(abs(n - real) <= 0.25 * real for n in stated), (stated, real)
