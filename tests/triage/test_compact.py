"""The compact triage result, the MCP default: what an agent needs to reorder and test the hypotheses,
in a few thousand tokens for limit=10 (the skill's advice), with the full form on request."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from mldebug_mcp.cli import main
from mldebug_mcp.errors import UsageError
from mldebug_mcp.models.triage import FULL_ONLY
from mldebug_mcp.server import build_server
from mldebug_mcp.services.paths import AllowedDirs
from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.brief import FIX_CHARS, TEST_CHARS, one_line

pytestmark = pytest.mark.anyio
COMPACT_BUDGET = 18_000  # bytes of structured content and text together, for limit=10, test plan and questions included
SYMPTOMS = (
    "my loss becomes nan after a few hundred steps, lr 1e-3, adam, fp16",
    "validation accuracy is much lower than training accuracy, the model overfits after epoch 3",
    "loss stuck at 2.30 from the first epoch on CIFAR-10, accuracy 10%",
)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _size(result) -> int:
    structured = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)
    return len(structured.encode()) + sum(len(block.text.encode()) for block in result.content if block.type == "text")


async def test_the_mcp_default_is_compact_and_fits_the_budget_for_limit_10(tmp_path):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        for symptom in SYMPTOMS:
            compact = await client.call_tool("triage", {"symptom": symptom, "limit": 10})
            full = await client.call_tool("triage", {"symptom": symptom, "limit": 10, "detail": "full"})
            assert not compact.is_error and compact.structured_content["detail"] == "compact"
            assert _size(compact) < COMPACT_BUDGET < _size(full)
            assert [h["cause"] for h in compact.structured_content["hypotheses"]] \
                == [h["cause"] for h in full.structured_content["hypotheses"]]
            for short, long in zip(compact.structured_content["hypotheses"], full.structured_content["hypotheses"]):
                assert not set(FULL_ONLY) & set(short)  # left out, not sent as nulls
                assert short["evidence_ids"] == long["evidence_ids"] and short["evidence_ids"]
                assert short["why"] == long["why"] and short["tool_call"] == long["tool_call"]
            assert "detail='full'" in "".join(b.text for b in compact.content if b.type == "text")


def test_compact_hypotheses_keep_the_test_and_fix_in_one_line():
    compact, full = (triage(SYMPTOMS[0], limit=10, detail=detail) for detail in ("compact", "full"))
    for short, long in zip(compact.hypotheses, full.hypotheses):
        assert short.cause == long.cause and short.weight == long.weight
        assert len(short.test) <= TEST_CHARS and long.test.startswith(short.test.rstrip("\u2026"))
        assert len(short.fix) <= FIX_CHARS and "\n" not in short.fix
        assert (short.if_cause, short.if_not, short.avoid, short.evidence) == (None, None, [], [])
        assert long.if_cause and long.evidence


def test_a_long_symptom_is_not_echoed_whole_in_the_compact_form():
    long_symptom = "the loss becomes nan. " * 100
    assert len(triage(long_symptom, detail="compact").symptom) <= 200
    assert triage(long_symptom, detail="full").symptom == long_symptom


def test_an_unknown_detail_is_refused_with_the_choices():
    with pytest.raises(UsageError, match="detail must be 'compact' or 'full'"):
        triage("loss is nan", detail="short")


def test_one_line_keeps_the_first_sentence_and_cuts_at_a_word():
    assert one_line("Run the check. Then read it.", 100) == "Run the check."
    assert one_line("Use e.g. bf16 here. Next.", 100) == "Use e.g. bf16 here."
    assert one_line("alpha beta gamma delta", 12) == "alpha beta\u2026"


def test_the_cli_stays_full_by_default_and_offers_compact(capsys):
    assert main(["triage", "--symptom", SYMPTOMS[0], "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert main(["triage", "--symptom", SYMPTOMS[0], "--json", "--detail", "compact"]) == 0
    compact = json.loads(capsys.readouterr().out)
    assert full["detail"] == "full" and full["hypotheses"][0]["evidence"]
    assert compact["detail"] == "compact" and "evidence" not in compact["hypotheses"][0]
    assert [h["cause"] for h in full["hypotheses"]] == [h["cause"] for h in compact["hypotheses"]]
