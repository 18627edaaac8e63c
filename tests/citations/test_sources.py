"""evidence/sources.yaml read into Source records, with the entry and line named when one is wrong."""

import pytest

from mldebug_mcp.citations.sources import parse_sources
from mldebug_mcp.errors import ContentError

GOOD = """\
jones:
  author: Andy Jones
  title: Debugging RL
  year: 2021
  url: https://andyljones.com/posts/rl-debugging.html
  kind: blog
  credence: high
  credence_reason: a practitioner's field notes
  licence: quoted briefly
  note_to_self: an unknown key is ignored, so a misspelt field shows up as missing
"""


def test_a_good_entry_is_read_with_numbers_as_text():
    source = parse_sources(GOOD)["jones"]
    assert source.year == "2021" and source.verified_against is None and source.author == "Andy Jones"


@pytest.mark.parametrize(("edit", "message", "line"), [
    (("  author: Andy Jones\n", ""), "missing field(s) 'author'", 1),
    (("  title: Debugging RL\n", "  title: [a, list]\n"), "field 'title': expected text, got list", 1),
    (("jones:", "Jones Blog:"), "must be lowercase words joined by hyphens", 1),
    (("  kind: blog\n", "  kind: [\n"), "invalid YAML", None),
])
def test_a_bad_entry_names_the_source_the_problem_and_the_line(edit, message, line):
    with pytest.raises(ContentError) as info:
        parse_sources(GOOD.replace(*edit), "evidence/sources.yaml")
    assert message in str(info.value) and str(info.value).startswith("evidence/sources.yaml:")
    if line is not None:
        assert info.value.line == line


def test_the_file_must_be_a_mapping():
    with pytest.raises(ContentError, match="mapping of source keys"):
        parse_sources("- jones\n- rahtz\n")
