"""The same request gives the same result, or the same error, from the CLI, the MCP server and the Python API.

Each case runs through all three faces: `mldebug-mcp ...` in process, a tool call over an in-memory MCP
session, and the service function. Results are compared by what they mean (finding codes and lines,
quote ids, hypothesis ids); errors by their message, which each face passes on unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client

from mldebug_mcp.cli import main
from mldebug_mcp.errors import MldebugError
from mldebug_mcp.server import build_server
from mldebug_mcp.services import advice, evidence, lint, triage
from mldebug_mcp.services.paths import AllowedDirs

pytestmark = pytest.mark.anyio

SOFTMAX_INTO_CE = (
    "import torch.nn as nn\nimport torch.nn.functional as F\n\n"
    "def step(model, x, y):\n"
    "    probs = F.softmax(model(x), dim=-1)\n"
    "    return nn.CrossEntropyLoss()(probs, y)\n"
)
MISSING = "no such file or directory"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@dataclass
class Outcome:
    value: object = None  # what the result means, comparable across faces
    error: str = ""       # the message of a refused request


def _findings(items) -> list[tuple[str, int]]:
    return sorted((f["code"] if isinstance(f, dict) else f.code, f["line"] if isinstance(f, dict) else f.line)
                  for f in items)


def _cli(capsys, argv: list[str], meaning) -> Outcome:
    code = main(argv)
    out, err = capsys.readouterr()
    if code == 2:
        assert "error: " in err, err
        return Outcome(error=err.split("error: ", 1)[1].strip())
    return Outcome(value=meaning(json.loads(out)))


async def _mcp(tmp_path: Path, tool: str, arguments: dict, meaning) -> Outcome:
    async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
        result = await client.call_tool(tool, arguments)
    if result.is_error:
        text = "".join(block.text for block in result.content if block.type == "text").strip()
        return Outcome(error=text.removeprefix(f"Error executing tool {tool}: "))  # the SDK's own prefix
    return Outcome(value=meaning(result.structured_content))


def _api(call, meaning) -> Outcome:
    try:
        return Outcome(value=meaning(call()))
    except MldebugError as exc:
        return Outcome(error=str(exc).strip())


LINT_CASES = {
    # (select, ignore, expected codes): lower-case codes and comma lists mean the same as upper-case lists
    "lower-case select": (["mld001"], None, ["MLD001"]),
    "comma list": (["MLD001,MLD002"], None, ["MLD001"]),
    "comma list with spaces, lower case": (["mld002, mld001"], None, ["MLD001"]),
    "ignore in lower case": (None, ["mld001"], []),
    "prefix": (["MLD0"], None, ["MLD001"]),
}


@pytest.mark.parametrize("case", sorted(LINT_CASES))
async def test_lint_gives_the_same_findings_from_every_face(case, tmp_path, capsys):
    select, ignore, expected = LINT_CASES[case]
    path = tmp_path / "train.py"
    path.write_text(SOFTMAX_INTO_CE, encoding="utf-8")
    flags = [f for code in select or [] for f in ("--select", code)] + [f for code in ignore or [] for f in ("--ignore", code)]
    meaning = lambda data: _findings(data["findings"] if isinstance(data, dict) else data)  # noqa: E731
    api_meaning = lambda report: _findings(report.findings)  # noqa: E731
    faces = {
        "cli": _cli(capsys, ["lint", str(path), "--format", "json", *flags], meaning),
        "mcp files": await _mcp(tmp_path, "lint", {"paths": [str(path)], "select": select, "ignore": ignore}, meaning),
        "mcp source": await _mcp(tmp_path, "lint", {"source": SOFTMAX_INTO_CE, "select": select, "ignore": ignore},
                                 meaning),
        "api files": _api(lambda: lint.lint([str(path)], select=select, ignore=ignore), api_meaning),
        "api source": _api(lambda: lint.lint(source=SOFTMAX_INTO_CE, select=select, ignore=ignore), api_meaning),
    }
    for face, outcome in faces.items():
        assert outcome.error == "", (face, outcome.error)
        assert [code for code, _ in outcome.value] == expected, face
    assert len({json.dumps(o.value) for o in faces.values()}) == 1, faces


ERROR_CASES = {
    # name: (CLI argv after the file, MCP arguments, API call, words of the message)
    "missing path": (["lint", "{tmp}/nope.py"], ("lint", {"paths": ["{tmp}/nope.py"]}),
                     lambda tmp: lint.lint([f"{tmp}/nope.py"]), MISSING),
    "unknown rule code": (["lint", "{tmp}", "--select", "XYZ9"], ("lint", {"paths": ["{tmp}"], "select": ["XYZ9"]}),
                          lambda tmp: lint.lint([str(tmp)], select=["XYZ9"]), "matches no lint rule"),
    "malformed rule code": (["lint", "{tmp}", "--select", "MLD-1"], ("lint", {"source": "x = 1", "select": ["MLD-1"]}),
                            lambda tmp: lint.lint(source="x = 1", select=["MLD-1"]), "is not a rule code"),
    "unknown source key": (["quote", "karpaty-recipe"], ("quote", {"key": "karpaty-recipe"}),
                           lambda tmp: evidence.quote_lookup(key="karpaty-recipe"), "unknown source key"),
    "unknown observation": (["triage", "--observe", "sad"], ("triage", {"observations": ["sad"]}),
                            lambda tmp: triage.triage("", ["sad"]), "unknown observation"),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
async def test_a_bad_request_gets_the_same_error_from_every_face(case, tmp_path, capsys):
    argv, (tool, arguments), call, words = ERROR_CASES[case]
    fill = lambda value: value.replace("{tmp}", str(tmp_path)) if isinstance(value, str) else value  # noqa: E731
    arguments = {k: [fill(v) for v in value] if isinstance(value, list) else fill(value) for k, value in arguments.items()}
    faces = {
        "cli": _cli(capsys, [fill(a) for a in argv], lambda data: data),
        "mcp": await _mcp(tmp_path, tool, arguments, lambda data: data),
        "api": _api(lambda: call(tmp_path), lambda value: value),
    }
    for face, outcome in faces.items():
        assert words in outcome.error, (face, outcome)
    assert len({o.error for o in faces.values()}) == 1, faces


async def test_quote_triage_and_advice_agree_across_faces(tmp_path, capsys):
    symptom = "loss becomes nan after 2000 steps with fp16"
    ids = lambda data: [q["id"] for q in data["quotes"]]  # noqa: E731
    assert _cli(capsys, ["quote", "jones", "--json"], ids).value \
        == (await _mcp(tmp_path, "quote", {"key": "jones"}, ids)).value \
        == [q.id for q in evidence.quote_lookup(key="jones").quotes]
    causes = lambda data: [h["cause"] for h in data["hypotheses"]]  # noqa: E731
    assert _cli(capsys, ["triage", "--symptom", symptom, "--json"], causes).value \
        == (await _mcp(tmp_path, "triage", {"symptom": symptom}, causes)).value \
        == [h.cause for h in triage.triage(symptom).hypotheses]
    found = lambda data: [f["id"] for f in data["findings"]]  # noqa: E731
    draft = "Switch to SGD and wrap the step in try/except so the run keeps going."
    assert _cli(capsys, ["advice", draft, "--json"], found).value \
        == (await _mcp(tmp_path, "check_advice", {"text": draft}, found)).value \
        == [f.id for f in advice.check_advice(draft).findings]
