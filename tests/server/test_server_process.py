"""The server as a real process: stdio through the SDK client, streamable HTTP on loopback,
malformed input, and a clean stdout."""

import json
import socket
import subprocess
import sys
import time

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio
SERVE = [sys.executable, "-m", "mldebug_mcp", "serve"]


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_stdio_through_the_sdk_client(tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "mldebug_mcp", "serve", "--allow-dir", str(tmp_path)])
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"quote", "list_sources", "read_reference"} <= names
        result = await client.call_tool("quote", {"key": "jones/assume-a-bug"})
        assert not result.is_error
        assert result.structured_content["quotes"][0]["author"] == "Andy Jones"
        bad = await client.call_tool("quote", {"key": "nobody"})
        assert bad.is_error


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early: {proc.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server did not listen on {port} within {timeout}s")


async def test_streamable_http_on_loopback():
    port = _free_port()
    proc = subprocess.Popen(SERVE + ["--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, proc)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            tools = (await client.list_tools()).tools
            assert "read_reference" in {t.name for t in tools}
            result = await client.call_tool("read_reference", {"document": "skill", "section": "The loop"})
            assert result.structured_content["section"] == "The loop"
            bad = await client.call_tool("read_reference", {"document": "nothing"})
            assert bad.is_error and "unknown document" in bad.content[0].text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _rpc(id_, method, params=None) -> str:
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def _exchange(lines: list[str], wanted_ids: set, timeout: float = 60.0) -> list[dict]:
    """Send lines to a stdio server; read replies until every wanted id is answered; then close stdin."""
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    messages: list[dict] = []
    try:
        for line in lines:
            proc.stdin.write(line + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while not wanted_ids <= {m.get("id") for m in messages} and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            messages.append(json.loads(line))  # every stdout line must be a JSON message
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert proc.returncode == 0, proc.stderr.read()
    return messages


def test_malformed_input_gets_errors_and_the_server_keeps_serving():
    initialize = _rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "raw", "version": "0"}})
    lines = [
        initialize,
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),  # missing params
        _rpc(3, "no/such/method", {}),
        _rpc(4, "tools/call", {"name": "no_such_tool", "arguments": {}}),
        _rpc(5, "tools/call", {"name": "quote", "arguments": {"key": 42}}),
        _rpc(6, "tools/call", {"name": "quote", "arguments": {"key": "jones/assume-a-bug"}}),
    ]
    messages = _exchange(lines, {None, 1, 2, 3, 4, 5, 6})
    assert all(m.get("jsonrpc") == "2.0" for m in messages), "stdout carries only protocol messages"
    by_id = {m.get("id"): m for m in messages}
    assert by_id[None]["error"]["code"] == -32700
    assert by_id[2]["error"]["code"] == -32602
    assert by_id[3]["error"]["code"] == -32601
    assert by_id[4]["result"]["isError"] is True
    assert by_id[5]["result"]["isError"] is True
    answer = by_id[6]["result"]
    assert answer.get("isError") is not True
    assert answer["structuredContent"]["quotes"][0]["id"] == "jones/assume-a-bug"


def test_start_up_does_not_import_heavy_packages():
    code = (
        "import sys\n"
        "from mldebug_mcp.server import build_server\n"
        "build_server()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'matplotlib', 'numpy'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_bad_port_and_missing_allow_dir_are_usage_errors(tmp_path):
    bad_port = subprocess.run(SERVE + ["--transport", "http", "--port", "70000"], capture_output=True, text=True)
    assert bad_port.returncode == 2 and "not a TCP port" in bad_port.stderr
    missing = subprocess.run(SERVE + ["--allow-dir", str(tmp_path / "absent")], capture_output=True, text=True)
    assert missing.returncode == 2 and "is not an existing folder" in missing.stderr
