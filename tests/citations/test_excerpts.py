import pytest

from mldebug_mcp.citations.excerpts import is_shortening_of, parse_excerpt_file
from mldebug_mcp.errors import ContentError

GOOD = """# Someone, "A post" (2020)

## src/first-point

locator: section "One", paragraph 2
checked: owner/repo@abc1234 post.md

> The first line of the quote
> continues here. [...] And ends here.

## src/second-point

locator: section "Two", paragraph 1
checked: copy: stored file id 42

> Short.
"""


def test_parses_every_excerpt_with_its_fields():
    excerpts = parse_excerpt_file(GOOD, "src", "evidence/excerpts/src.md")
    assert [e.id for e in excerpts] == ["src/first-point", "src/second-point"]
    first = excerpts[0]
    assert first.text == "The first line of the quote continues here. [...] And ends here."
    assert first.locator == 'section "One", paragraph 2'
    assert first.checked == "owner/repo@abc1234 post.md"
    assert first.line == 3
    assert excerpts[1].checked.startswith("copy:")


@pytest.mark.parametrize(
    ("broken", "line", "fragment"),
    [
        (GOOD.replace("## src/first-point", "## other/first-point"), 3, "must look like 'src/"),
        (GOOD.replace("## src/second-point", "## src/first-point"), 11, "duplicate excerpt id"),
        (GOOD.replace('locator: section "One", paragraph 2\n', ""), 3, "no 'locator:' line"),
        (GOOD.replace("> Short.\n", ""), 11, "has no '> ' quote"),
        (GOOD.replace("> continues here.", ">\n> continues here."), 9, "blank '>' line"),
        (GOOD.replace("checked: copy: stored file id 42", "source: 42"), 14, "unexpected line"),
        (GOOD.replace("> Short.\n", "> Short.\n\n> Second paragraph.\n"), 18, "second quote paragraph"),
    ],
)
def test_malformed_files_fail_with_the_line_and_the_problem(broken, line, fragment):
    with pytest.raises(ContentError) as info:
        parse_excerpt_file(broken, "src", "evidence/excerpts/src.md")
    assert info.value.line == line
    assert fragment in str(info.value)
    assert "evidence/excerpts/src.md" in str(info.value)


def test_shortening_allows_only_marked_cuts_in_order():
    original = "Alpha beta gamma. Delta epsilon zeta. Eta theta."
    assert is_shortening_of("Alpha beta gamma. [...] Eta theta.", original)
    assert is_shortening_of("Delta epsilon zeta.", original)
    assert not is_shortening_of("Alpha gamma.", original)  # unmarked cut
    assert not is_shortening_of("Eta theta. [...] Alpha beta", original)  # out of order
    assert not is_shortening_of("Alpha beta gamma, truly.", original)  # added words
