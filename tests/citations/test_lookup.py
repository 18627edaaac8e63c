import pytest

from mldebug_mcp.citations import lookup
from mldebug_mcp.errors import UnknownKeyError, UsageError
from mldebug_mcp.services.evidence import load_store


@pytest.fixture(scope="module")
def store():
    return load_store()


def test_source_key_gives_all_its_excerpts_with_attribution(store):
    quotes = lookup.quotes_for_key(store, "jones")
    assert len(quotes) >= 3
    assert {q.source for q in quotes} == {"jones"}
    assert all(q.author == "Andy Jones" and q.url.startswith("https://andyljones.com") for q in quotes)
    assert all(q.locator and q.text for q in quotes)


def test_excerpt_id_gives_one_quote_with_its_claims(store):
    [quote] = lookup.quotes_for_key(store, "jones/assume-a-bug")
    assert quote.id == "jones/assume-a-bug"
    assert quote.text.startswith("When their RL implementation doesn't work")
    assert quote.claims, "every excerpt supports at least one claim of the map"


def test_unknown_keys_suggest_close_matches(store):
    with pytest.raises(UnknownKeyError) as info:
        lookup.quotes_for_key(store, "jonse")
    assert "jones" in info.value.suggestions
    with pytest.raises(UnknownKeyError) as info:
        lookup.quotes_for_key(store, "jones/asume-a-bug")
    assert info.value.suggestions[0] == "jones/assume-a-bug"


def test_source_without_verified_text_says_why(store):
    with pytest.raises(UsageError, match="no verified excerpts"):
        lookup.quotes_for_key(store, "schulman")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("overfit a single batch", {"karpathy-recipe/overfit-one-batch", "hfcourse/overfit-one-batch",
                                    "karpathy-mistakes/overfit-single-batch-first"}),
        ("learning rate for Adam", {"karpathy-recipe/adam-is-safe"}),
        ("chat template", {"unsloth/same-chat-template"}),
        ("random seeds", {"lones/multiple-random-seeds", "henderson/seed-splits-differ"}),
    ],
)
def test_search_ranks_the_relevant_excerpts_first(store, query, expected):
    top = [q.id for q in lookup.search_quotes(store, query, limit=5)]
    assert expected & set(top[:3]), top


def test_search_without_content_words_is_a_usage_error(store):
    with pytest.raises(UsageError, match="no content words"):
        lookup.search_quotes(store, "the of and")


def test_search_with_no_match_returns_nothing(store):
    assert lookup.search_quotes(store, "zyzzyva quokka") == []


def test_claims_come_with_their_supporting_quotes(store):
    matches = lookup.match_claims(store, "assume you have a bug")
    assert matches
    best = matches[0]
    assert "bug" in best.title.lower()
    assert best.quotes and all(best.title in q.claims for q in best.quotes)
    assert best.credence is not None and 0 <= best.credence <= 1
