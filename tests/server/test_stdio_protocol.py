"""stdio, line by line: every line that is not one valid JSON-RPC message gets an error, with the request's
id wherever that id is readable and valid, and the server keeps serving."""

import json
import subprocess
import sys
import time

SERVE = [sys.executable, "-m", "mldebug_mcp", "serve"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LAST = {"jsonrpc": "2.0", "id": "last", "method": "ping"}  # answered last: every earlier line has had its turn


def _answers(lines: list[str], timeout: float = 60.0) -> list[dict]:
    """Every message the server writes for `lines`, up to the answer to LAST (sent after them)."""
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    messages: list[dict] = []
    try:
        proc.stdin.write("\n".join([json.dumps(INITIALIZE), json.dumps(INITIALIZED), *lines, json.dumps(LAST)]) + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not any(m.get("id") == "last" for m in messages):
            line = proc.stdout.readline()
            if not line:
                break
            messages.append(json.loads(line))
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert any(m.get("id") == "last" for m in messages), proc.stderr.read()[-2000:]
    return [m for m in messages if m.get("id") not in (1, "last")]


def test_a_bad_jsonrpc_version_is_an_invalid_request_answered_with_its_id():
    [answer] = _answers([json.dumps({"jsonrpc": "1.0", "id": 7, "method": "ping"})])
    assert answer["id"] == 7
    assert answer["error"]["code"] == -32600
    assert '"2.0"' in answer["error"]["message"]


def test_a_structurally_invalid_request_with_a_readable_id_keeps_its_id():
    lines = [json.dumps({"jsonrpc": "2.0", "id": "s", "method": "ping", "params": 5}),
             json.dumps({"jsonrpc": "2.0", "id": 8, "method": 42})]
    answers = {a["id"]: a["error"] for a in _answers(lines)}
    assert answers["s"]["code"] == -32600 and "params must be an object" in answers["s"]["message"]
    assert answers[8]["code"] == -32600 and "method must be a string" in answers[8]["message"]


def test_a_request_with_an_invalid_id_is_answered_not_taken_for_a_notification():
    lines = [json.dumps({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
             json.dumps({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})]
    answers = _answers(lines)
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(None, -32600), (None, -32600)]
    assert all("id must be a string or an integer" in a["error"]["message"] for a in answers)


def test_only_text_that_is_not_json_is_a_parse_error():
    answers = _answers(["this is not json", "[1, 2]", json.dumps("a string")])
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(None, -32700), (None, -32600), (None, -32600)]
