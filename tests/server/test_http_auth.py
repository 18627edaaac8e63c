"""HTTP serving beyond loopback: refused without a token, the token read from where --auth-token says (never
the command line), every request checked for it, the Host/Origin checks kept, and invalid JSON-RPC bodies
answered with an error instead of 202."""

import os
import socket
import subprocess
import sys
import time

import pytest
from starlette.testclient import TestClient

from mldebug_mcp.errors import UsageError
from mldebug_mcp.server import build_server
from mldebug_mcp.server.http import (
    TOKEN_ENV,
    build_http_app,
    is_loopback,
    plan_http,
    read_auth_token,
    startup_notice,
)

SERVE = [sys.executable, "-m", "mldebug_mcp", "serve"]
TOKEN = "s3cret-token-for-tests-0123456789"
LAN = "10.20.30.40"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _environ_without_token() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != TOKEN_ENV}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    return build_server()


@pytest.fixture
def lan_client(server):
    """The app as bound to a LAN address with a token, reached through that address."""
    app = build_http_app(server, plan_http(LAN, 8000, "env:T", [], {"T": TOKEN}))
    with TestClient(app, base_url=f"http://{LAN}:8000") as client:
        yield client


# Start-up: the non-loopback rule and where the token comes from

def test_a_non_loopback_bind_without_a_token_is_refused_at_start_up():
    proc = subprocess.run(SERVE + ["--transport", "http", "--host", "0.0.0.0", "--port", str(_free_port())],
                          capture_output=True, text=True, timeout=60, check=False, env=_environ_without_token())
    assert proc.returncode == 2, proc.stderr
    assert "not a loopback address" in proc.stderr and "--auth-token env:NAME" in proc.stderr


def test_a_token_written_on_the_command_line_is_refused_and_not_echoed():
    proc = subprocess.run(SERVE + ["--transport", "http", "--auth-token", TOKEN, "--port", str(_free_port())],
                          capture_output=True, text=True, timeout=60, check=False, env=_environ_without_token())
    assert proc.returncode == 2, proc.stderr
    assert "not the token itself" in proc.stderr and "`ps`" in proc.stderr
    assert TOKEN[:4] not in proc.stderr


def test_http_options_over_stdio_are_usage_errors():
    proc = subprocess.run(SERVE + ["--auth-token", "env:X"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "--transport http only" in proc.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_binds_need_no_token(host):
    plan = plan_http(host, 8000, None, [], {})
    assert plan.loopback and plan.token is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", LAN, "gpu-box.lan"])
def test_other_binds_need_a_token(host):
    assert not is_loopback(host)
    with pytest.raises(UsageError, match="needs an auth token"):
        plan_http(host, 8000, None, ["gpu-box.lan"], {})


def test_a_wildcard_bind_needs_the_host_names_clients_use():
    with pytest.raises(UsageError, match="--allowed-host"):
        plan_http("0.0.0.0", 8000, "env:T", [], {"T": TOKEN})
    plan = plan_http("0.0.0.0", 8000, "env:T", ["gpu-box.lan", "10.0.0.5:8000", "fe80::1"], {"T": TOKEN})
    assert {"gpu-box.lan", "gpu-box.lan:*", "10.0.0.5:8000", "[fe80::1]:*"} <= set(plan.allowed_hosts)
    assert "10.0.0.5:*" not in plan.allowed_hosts


def test_the_token_comes_from_the_named_variable_or_the_default_one():
    assert read_auth_token("env:T", {"T": f"  {TOKEN}\n"}) == (TOKEN, "env:T")
    assert read_auth_token(None, {TOKEN_ENV: TOKEN}) == (TOKEN, f"env:{TOKEN_ENV}")
    assert read_auth_token(None, {}) == (None, None)
    with pytest.raises(UsageError, match="T is not set"):
        read_auth_token("env:T", {})


@pytest.mark.parametrize(("value", "problem"), [
    ("", "is empty"),
    ("short", "5 characters long; use at least 16"),
    ("sixteen chars ok but spaced", "spaces or characters"),
])
def test_empty_short_or_unsendable_tokens_are_refused(value, problem):
    with pytest.raises(UsageError, match=problem):
        read_auth_token("env:T", {"T": value})


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_the_token_file_must_be_private(tmp_path):
    path = tmp_path / "token"
    path.write_text(TOKEN + "\nsecond line ignored\n")
    path.chmod(0o644)
    with pytest.raises(UsageError, match="chmod 600"):
        read_auth_token(f"file:{path}", {})
    path.chmod(0o600)
    assert read_auth_token(f"file:{path}", {}) == (TOKEN, f"file:{path}")
    with pytest.raises(UsageError, match="cannot read the token file"):
        read_auth_token(f"file:{tmp_path / 'absent'}", {})


def test_the_start_up_notice_warns_who_can_reach_a_non_loopback_bind():
    lan = "\n".join(startup_notice(plan_http(LAN, 8000, "env:T", [], {"T": TOKEN})))
    assert "warning: listening on address 10.20.30.40, not loopback" in lan
    assert "Authorization: Bearer <token>" in lan and "env:T" in lan and TOKEN not in lan
    assert "warning" not in "\n".join(startup_notice(plan_http("127.0.0.1", 8000, None, [], {})))


# Requests: the bearer token, then Host and Origin

def test_a_request_without_the_token_gets_401_saying_what_is_missing(lan_client):
    answer = lan_client.post("/mcp", json=INITIALIZE, headers=ACCEPT)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == 'Bearer realm="mldebug-mcp"'
    assert answer.json()["error"] == "missing_token"
    assert "Authorization: Bearer <token>" in answer.json()["error_description"]


@pytest.mark.parametrize(("header", "error"), [
    ("Bearer not-the-token-at-all-xxxxxxxx", "invalid_token"),
    (f"Basic {TOKEN}", "invalid_request"),
    ("Bearer", "invalid_request"),
])
def test_a_wrong_token_or_scheme_gets_401(lan_client, header, error):
    answer = lan_client.post("/mcp", json=INITIALIZE, headers=ACCEPT | {"Authorization": header})
    assert answer.status_code == 401
    assert f'error="{error}"' in answer.headers["www-authenticate"]
    assert answer.json()["error"] == error


def test_every_route_is_behind_the_token(lan_client):
    assert lan_client.get("/anything").status_code == 401
    assert lan_client.get("/mcp", headers=ACCEPT).status_code == 401


def test_the_right_token_is_served(lan_client):
    answer = lan_client.post("/mcp", json=INITIALIZE, headers=ACCEPT | AUTH)
    assert answer.status_code == 200, answer.text
    assert '"serverInfo"' in answer.text


def test_a_bad_origin_or_host_is_refused_even_with_the_token(lan_client):
    evil_origin = lan_client.post("/mcp", json=INITIALIZE, headers=ACCEPT | AUTH | {"Origin": "http://evil.example"})
    assert evil_origin.status_code == 403
    own_origin = lan_client.post("/mcp", json=INITIALIZE, headers=ACCEPT | AUTH | {"Origin": f"http://{LAN}:8000"})
    assert own_origin.status_code == 200
    rebound = lan_client.post("/mcp", json=INITIALIZE, headers=ACCEPT | AUTH | {"Host": "evil.example"})
    assert rebound.status_code == 421


def test_loopback_without_a_token_serves_as_before_and_keeps_the_origin_check(server):
    app = build_http_app(server, plan_http("127.0.0.1", 8000, None, [], {}))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.post("/mcp", json=INITIALIZE, headers=ACCEPT).status_code == 200
        evil = client.post("/mcp", json=INITIALIZE, headers=ACCEPT | {"Origin": "http://evil.example"})
        assert evil.status_code == 403


# Bodies that are not one valid JSON-RPC message

def _in_session(client: TestClient) -> dict[str, str]:
    """Headers of requests inside an initialized session (where the SDK alone answers 202)."""
    session = client.post("/mcp", json=INITIALIZE, headers=ACCEPT | AUTH).headers["mcp-session-id"]
    return ACCEPT | AUTH | {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}


@pytest.mark.parametrize("bad_id", [1.5, {"a": 1}, True, None])
def test_a_request_with_an_invalid_id_gets_invalid_request_not_202(lan_client, bad_id):
    answer = lan_client.post("/mcp", json={"jsonrpc": "2.0", "id": bad_id, "method": "ping"},
                             headers=_in_session(lan_client))
    assert answer.status_code == 400
    body = answer.json()
    assert body["id"] is None and body["error"]["code"] == -32600
    assert "id must be a string or an integer" in body["error"]["message"]


def test_an_invalid_request_with_a_readable_id_is_answered_with_that_id(lan_client):
    answer = lan_client.post("/mcp", json={"jsonrpc": "1.0", "id": 7, "method": "ping"},
                             headers=_in_session(lan_client))
    assert answer.status_code == 400
    assert answer.json()["id"] == 7 and answer.json()["error"]["code"] == -32600


def test_a_body_that_is_not_json_gets_a_parse_error(lan_client):
    ping = lan_client.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=_in_session(lan_client))
    assert ping.status_code == 200 and '"id":2' in ping.text  # valid messages pass the screen untouched
    answer = lan_client.post("/mcp", content=b"not json", headers=ACCEPT | AUTH | {"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["id"] is None and answer.json()["error"]["code"] == -32700


# End to end: a real port and the SDK's client

@pytest.fixture
def token_server_url():
    """A real server on a free loopback port, its token from $MLDEBUG_AUTH_TOKEN."""
    port = _free_port()
    env = _environ_without_token() | {TOKEN_ENV: TOKEN}
    proc = subprocess.Popen(SERVE + ["--transport", "http", "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.anyio
async def test_a_real_server_with_a_token_serves_the_sdk_client_that_sends_it(token_server_url):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (httpx2.AsyncClient(headers=AUTH, timeout=30) as http,
                Client(streamable_http_client(token_server_url, http_client=http)) as client):
        assert "read_reference" in {t.name for t in (await client.list_tools()).tools}
    async with httpx2.AsyncClient() as http:
        refused = await http.post(token_server_url, json=INITIALIZE, headers=ACCEPT)
    assert refused.status_code == 401


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


@pytest.fixture
def anyio_backend():
    return "asyncio"

