"""triage and triage_step through the MCP protocol and the CLI."""

import io
import json

import pytest
from mcp import Client

from mldebug_mcp.cli import main
from mldebug_mcp.server import build_server
from mldebug_mcp.services.paths import AllowedDirs

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _text(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def test_triage_tool_returns_ranked_hypotheses_with_tests_and_quotes(tmp_path):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        result = await client.call_tool("triage", {"symptom": "loss becomes nan after 2000 steps with fp16",
                                                   "detail": "full"})
    assert not result.is_error
    data = result.structured_content
    assert "nan" in data["observations"] and data["detail"] == "full"
    first = data["hypotheses"][0]
    for key in ("cause", "title", "why", "test", "prior", "weight", "if_cause", "if_not", "evidence"):
        assert key in first
    assert first["evidence"][0]["author"] and "Run next:" in _text(result)
    assert first["evidence_ids"] == [quote["id"] for quote in first["evidence"]]


async def test_triage_tool_rejects_an_empty_request_and_unknown_observations(tmp_path):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        empty = await client.call_tool("triage", {})
        unknown = await client.call_tool("triage", {"observations": ["sad"]})
    assert empty.is_error and "describe the problem" in _text(empty)
    assert unknown.is_error and "unknown observation(s) sad" in _text(unknown)


async def test_triage_step_tool_walks_to_a_leaf(tmp_path):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        first = await client.call_tool("triage_step", {})
        leaf = await client.call_tool("triage_step", {"answers": {"crash": "no", "nan": "no", "loss-zero": "yes"}})
        bad = await client.call_tool("triage_step", {"answers": {"crash": "perhaps"}})
    assert first.structured_content["node"] == "crash" and not first.structured_content["done"]
    assert leaf.structured_content["done"] and leaf.structured_content["observations"] == ["loss_zero"]
    assert leaf.structured_content["triage"]["hypotheses"]
    assert bad.is_error and "is not one of: yes, no" in _text(bad)


def test_cli_triage_symptom_json_has_the_documented_shape(capsys):
    assert main(["triage", "--symptom", "validation accuracy far below training accuracy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    hypotheses = data["hypotheses"]
    assert len(hypotheses) >= 3
    assert {"cause", "title", "why", "test", "prior", "weight", "evidence"} <= set(hypotheses[0])
    assert "train_val_gap" in data["observations"]


def test_cli_triage_reads_the_symptom_from_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("the model always predicts the same class\n"))
    assert main(["triage", "--symptom", "-", "--no-quotes"]) == 0
    out = capsys.readouterr().out
    assert "constant_outputs (read from the text)" in out and "evidence: " in out


def test_cli_triage_lists_observation_keys(capsys):
    assert main(["triage", "--observe", "list"]) == 0
    assert "cannot_overfit" in capsys.readouterr().out


def test_cli_triage_interactive_walk_reaches_a_leaf(capsys, monkeypatch):
    replies = iter(["no", "maybe", "yes", "the loss turns into nan after a while"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(replies))
    assert main(["triage"]) == 0
    out = capsys.readouterr().out
    assert "Does the run stop with an exception" in out
    assert "please answer one of: yes, no" in out
    assert "== Non-finite values ==" in out and "Run next:" in out


def test_cli_triage_interactive_stops_on_q_and_on_end_of_input(capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["triage"]) == 1

    def closed(prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", closed)
    assert main(["triage", "--answer", "crash=no"]) == 1
    assert "rerun with --answer crash=no" in capsys.readouterr().out


def test_cli_triage_answer_json_gives_the_next_question(capsys):
    assert main(["triage", "--answer", "crash=no", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["node"] == "nan"


@pytest.mark.parametrize("argv, message", [
    (["triage", "--answer", "crash"], "must look like NODE=ANSWER"),
    (["triage", "--observe", "sad"], "unknown observation"),
    (["triage", "--answer", "crash=perhaps", "--json"], "is not one of"),
])
def test_cli_triage_errors_exit_2_with_the_fix(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


BAD_ADVICE = "Lower the learning rate to 1e-5, and if it still fails switch to SGD."
GOOD_ADVICE = "Overfit one batch and check the loss at initialisation before touching any hyperparameter."


def test_cli_advice_flags_anti_patterns_with_quotes_and_exit_1(capsys):
    assert main(["advice", BAD_ADVICE]) == 1
    out = capsys.readouterr().out
    assert "[tune-before-correct]" in out and "[swap-optimizer]" in out and "Karpathy" in out


def test_cli_advice_is_quiet_on_good_advice(capsys):
    assert main(["advice", GOOD_ADVICE, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clean"] is True


def test_cli_advice_reads_a_file(tmp_path, capsys):
    draft = tmp_path / "answer.md"
    draft.write_text("Wrap the training step in try/except so the run survives.\n", encoding="utf-8")
    assert main(["advice", "--file", str(draft), "--no-quotes"]) == 1
    assert "evidence: " in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["advice"], "give the text to check"),
    (["advice", "x", "--file", "y.md"], "but not both"),
    (["advice", "   "], "got nothing"),
])
def test_cli_advice_usage_errors(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


async def test_check_advice_tool(tmp_path):
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        bad = await client.call_tool("check_advice", {"text": BAD_ADVICE})
        good = await client.call_tool("check_advice", {"text": GOOD_ADVICE})
        empty = await client.call_tool("check_advice", {"text": " "})
    ids = [f["id"] for f in bad.structured_content["findings"]]
    assert ids == ["tune-before-correct", "swap-optimizer"] and "Karpathy" in _text(bad)
    assert good.structured_content["clean"] is True
    assert empty.is_error


def _write_log(path, nan_at=None, rows=120):
    lines = ["step,train_loss,val_loss"]
    for step in range(rows):
        train = 2.3 * 0.97 ** step + 0.05
        value = "nan" if nan_at is not None and step >= nan_at else f"{train:.5f}"
        lines.append(f"{step},{value},{train + 0.2 + max(0, step - 60) * 0.02:.5f}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_cli_curve_classifies_plots_and_feeds_triage(tmp_path, capsys):
    log = _write_log(tmp_path / "log.csv", nan_at=100)
    png = tmp_path / "curve.png"
    assert main(["curve", str(log), "--plot", str(png), "--triage"]) == 0
    out = capsys.readouterr().out
    assert "observations: nan" in out and "Run next:" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_curve_json_keeps_non_finite_values_readable(tmp_path, capsys):
    log = _write_log(tmp_path / "log.csv", nan_at=100)
    assert main(["curve", str(log), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["curve"]["observations"][0] == "nan" and data["triage"] is None
    train = next(s for s in data["curve"]["series"] if s["name"] == "train_loss")
    assert train["last"] == "NaN"


@pytest.mark.parametrize("argv, message", [
    (["curve", "no-such.csv"], "no such file or folder"),
    (["curve", "LOG", "--classes", "1"], "num_classes must be 2 or more"),
    (["curve", "LOG", "--loss", "nope"], "nope"),
])
def test_cli_curve_errors_name_the_problem(tmp_path, capsys, argv, message):
    log = _write_log(tmp_path / "log.csv")
    argv = [str(log) if a == "LOG" else a for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


async def test_analyze_curve_tool_returns_observations_and_an_image(tmp_path):
    log = _write_log(tmp_path / "log.csv", nan_at=100)
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        result = await client.call_tool("analyze_curve", {"path": str(log), "plot": True})
        outside = await client.call_tool("analyze_curve", {"path": "/etc/hostname"})
    assert not result.is_error
    assert result.structured_content["observations"][0] == "nan"
    assert [block.type for block in result.content] == ["text", "image"]
    assert "triage with observations=['nan'" in _text(result)
    assert outside.is_error and "outside the allowed directories" in _text(outside)


def test_the_debugging_prompt_and_instructions_route_through_the_triage_tools():
    from mldebug_mcp.server import prompts

    text = prompts.debug_training("loss is stuck")
    for call in ("triage(symptom=", "analyze_curve(path=", "triage_step(answers={})", "check_advice(text="):
        assert call in text
    assert "check_advice" in prompts.INSTRUCTIONS and "triage" in prompts.INSTRUCTIONS


def test_cli_answers_to_tree_questions_rerank_a_symptom(capsys):
    """The thin report's questions are answered with --answer next to the same --symptom."""
    assert main(["triage", "--symptom", "my model does not work well", "--answer", "gap=worse", "--json"]) == 0
    answered = json.loads(capsys.readouterr().out)
    assert "train_val_gap" in answered["observations"]
    assert main(["triage", "--symptom", "my model does not work well", "--json"]) == 0
    assert "train_val_gap" not in json.loads(capsys.readouterr().out)["observations"]
