import json


def test_quote_source_prints_quote_then_attribution_with_url(run_cli):
    result = run_cli("quote", "jones")
    assert result.code == 0
    assert "\u201cWhen their RL implementation" in result.out
    assert "\u2014 Andy Jones" in result.out
    assert "https://andyljones.com/posts/rl-debugging.html" in result.out
    assert "[jones/assume-a-bug]" in result.out


def test_quote_json_has_every_field(run_cli):
    result = run_cli("quote", "--search", "overfit a single batch", "--json")
    assert result.code == 0
    data = json.loads(result.out)  # what the MCP tool returns as structured content
    assert data["query"] == "search=overfit a single batch" and data["claims"] == []
    quotes = data["quotes"]
    assert quotes
    fields = {"id", "source", "author", "title", "year", "url", "locator", "text", "claims"}
    assert all(fields <= set(q) for q in quotes)
    assert any("overfit" in q["text"].lower() for q in quotes[:3])


def test_unknown_key_exits_2_with_suggestions(run_cli):
    result = run_cli("quote", "karpaty-recipe")
    assert result.code == 2
    assert "unknown source key 'karpaty-recipe'" in result.err
    assert "karpathy-recipe" in result.err
    assert result.out == ""


def test_claim_lookup_shows_claim_and_quotes(run_cli):
    result = run_cli("quote", "--claim", "overfit one batch")
    assert result.code == 0
    assert "CLAIM [" in result.out and "\u2014 " in result.out


def test_list_shows_every_source(run_cli):
    result = run_cli("quote", "--list", "--json")
    keys = {s["key"] for s in json.loads(result.out)["sources"]}
    assert {"jones", "rahtz", "karpathy-recipe", "cs231n", "schulman"} <= keys
    text = run_cli("quote", "--list").out
    assert "no verified text" in text and "excerpts; credence high]" in text
    high = {s["key"] for s in json.loads(run_cli("quote", "--list", "--credence", "high", "--json").out)["sources"]}
    assert high and high < keys


def test_no_match_exits_1_and_bad_arguments_exit_2(run_cli):
    assert run_cli("quote", "--search", "zyzzyva quokka").code == 1
    assert run_cli("quote").code == 2
    assert run_cli("quote", "--search", "the of").code == 2
    assert run_cli("quote", "jones", "--limit", "0").code == 2


def test_no_command_prints_help_and_exits_2(run_cli):
    result = run_cli()
    assert result.code == 2
    assert "quote" in result.out
