"""Streamable HTTP serving: a bearer token for any bind beyond loopback, Host/Origin checks for every bind,
and a JSON-RPC error for every POST body that is not a valid message.

The rule: on loopback (127.0.0.1, ::1, localhost) the server may run without a token, as only this machine
can reach it. On any other address it refuses to start without one. When a token is configured, every
HTTP request must carry `Authorization: Bearer <token>`. The token is never given on the command line
(any user sees a command line through `ps`): `--auth-token env:NAME` or `--auth-token file:PATH` says
where to read it, and $MLDEBUG_AUTH_TOKEN holds it when no --auth-token is given.

The SDK's DNS-rebinding protection (TransportSecuritySettings) stays on for every bind: it accepts only
the Host headers listed here (loopback names, the bound address, each --allowed-host) and Origins of
those hosts.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp.server import MCPServer
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    RequestBodyLimitMiddleware,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import UsageError
from ..safe_read import open_regular
from .jsonrpc_errors import invalid_message_error

TOKEN_ENV = "MLDEBUG_AUTH_TOKEN"
MIN_TOKEN_LENGTH = 16
MCP_PATH = "/mcp"
LOOPBACK_HOST_HEADERS = ("127.0.0.1:*", "localhost:*", "[::1]:*")  # the SDK's own loopback defaults
WILDCARD_BINDS = frozenset({"0.0.0.0", "::"})
TOKEN_HINT = "e.g. from: openssl rand -base64 32 (or Python's secrets.token_urlsafe(32))"


@dataclass(frozen=True)
class HttpPlan:
    """What `serve --transport http` will do, checked before anything starts."""

    host: str
    port: int
    token: str | None
    token_source: str | None  # where the token was read from ("env:NAME", "file:PATH"), for messages
    allowed_hosts: tuple[str, ...]  # Host header patterns the SDK's check accepts

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)


def plan_http(host: str, port: int, token_source: str | None, allowed_hosts: Sequence[str],
              environ: Mapping[str, str]) -> HttpPlan:
    """The checked plan; UsageError names what is missing and how to give it."""
    token, source = read_auth_token(token_source, environ)
    if token is None and not is_loopback(host):
        raise UsageError(
            f"--host {host} is not a loopback address: other machines could reach the server, so it needs an auth "
            f"token. Give one with --auth-token env:NAME or --auth-token file:PATH (or set ${TOKEN_ENV}), "
            "or bind to 127.0.0.1"
        )
    if host in WILDCARD_BINDS and not allowed_hosts:
        raise UsageError(
            f"--host {host} listens on every interface, so the Host header clients send cannot be guessed; "
            "name each with --allowed-host NAME or NAME:PORT (the address or name clients connect to)"
        )
    return HttpPlan(host, port, token, source, host_patterns(host, allowed_hosts))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name other than localhost
        return False


def read_auth_token(source: str | None, environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(token, where it came from), or (None, None) when none is configured."""
    if source is None:
        if TOKEN_ENV not in environ:
            return None, None
        source = f"env:{TOKEN_ENV}"
    kind, _, where = source.partition(":")
    if kind == "env" and where:
        if where not in environ:
            raise UsageError(f"--auth-token {source}: the environment variable {where} is not set")
        value = environ[where]
    elif kind == "file" and where:
        value = _first_line_of_private_file(where)
    else:
        raise UsageError(
            "--auth-token takes where to read the token, not the token itself (every user can read a command line "
            "through `ps`): --auth-token env:NAME (an environment variable) or --auth-token file:PATH (the first "
            "line of a file only you can read)"
        )
    token = value.strip()
    _check_token(token, source)
    return token, source


def _first_line_of_private_file(path: str) -> str:
    try:
        with open_regular(path) as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if sys.platform != "win32" and mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise UsageError(f"--auth-token file:{path}: other users may read or change this file (mode "
                                 f"{stat.S_IMODE(mode):o}); make it private with: chmod 600 {path}")
            head = handle.read(4096)
    except OSError as exc:
        raise UsageError(f"--auth-token file:{path}: cannot read the token file ({exc.strerror or exc})") from exc
    try:
        return head.decode("utf-8").splitlines()[0] if head.strip() else ""
    except UnicodeDecodeError as exc:
        raise UsageError(f"--auth-token file:{path}: the file is not UTF-8 text") from exc


def _check_token(token: str, source: str) -> None:
    if not token:
        raise UsageError(f"the auth token from {source} is empty; put a random string of at least "
                         f"{MIN_TOKEN_LENGTH} characters there, {TOKEN_HINT}")
    if len(token) < MIN_TOKEN_LENGTH:
        raise UsageError(f"the auth token from {source} is {len(token)} characters long; use at least "
                         f"{MIN_TOKEN_LENGTH}, {TOKEN_HINT}")
    if not (token.isascii() and token.isprintable()) or any(c.isspace() for c in token):
        raise UsageError(f"the auth token from {source} has spaces or characters an HTTP header cannot carry; "
                         f"use letters, digits and -._~+/=, {TOKEN_HINT}")


def host_patterns(host: str, allowed_hosts: Sequence[str]) -> tuple[str, ...]:
    """Host header values to accept: loopback names always, the bound address, and each --allowed-host."""
    patterns = list(LOOPBACK_HOST_HEADERS)
    if not is_loopback(host) and host not in WILDCARD_BINDS:
        patterns += _host_header_patterns(host)
    for name in allowed_hosts:
        if not name or any(c in name for c in "/ @"):
            raise UsageError(f"--allowed-host {name!r}: give a host as clients write it in the Host header, "
                             "NAME or NAME:PORT (e.g. gpu-box.lan or 10.0.0.5:8000), without scheme or path")
        patterns += _host_header_patterns(name)
    return tuple(dict.fromkeys(patterns))


def _host_header_patterns(name: str) -> list[str]:
    if name.count(":") > 1 and not name.startswith("["):
        name = f"[{name}]"  # a bare IPv6 address, as a Host header writes it
    if re.search(r":\d+$", name):
        return [name]
    return [name, f"{name}:*"]  # a Host header omits the port only for the scheme's default one


def transport_security(plan: HttpPlan) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding check: only listed Host headers, and browser Origins of those hosts."""
    origins = [f"{scheme}://{pattern}" for pattern in plan.allowed_hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=list(plan.allowed_hosts), allowed_origins=origins)


def build_http_app(server: MCPServer, plan: HttpPlan) -> ASGIApp:
    """The SDK's streamable HTTP app, behind (outermost first) the Host/Origin check, the bearer token
    check when a token is set, and the screen of invalid JSON-RPC bodies."""
    security = transport_security(plan)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=security,
                                              host=plan.host)
    app = InvalidMessageScreen(app, MCP_PATH)
    if plan.token is not None:
        app = BearerTokenCheck(app, plan.token)
    return HostOriginCheck(app, security)


def startup_notice(plan: HttpPlan) -> list[str]:
    """Lines for stderr: where the server listens and, beyond loopback, who can reach it."""
    shown = f"[{plan.host}]" if ":" in plan.host else plan.host
    lines = [f"mldebug MCP server on http://{shown}:{plan.port}{MCP_PATH}"]
    if plan.token is not None:
        lines.append(f"every request must carry 'Authorization: Bearer <token>' (token from {plan.token_source})")
    if not plan.loopback:
        reach = "every interface" if plan.host in WILDCARD_BINDS else f"address {plan.host}"
        lines.append(
            f"warning: listening on {reach}, not loopback: any machine that can route to this one on port "
            f"{plan.port} can connect; only the bearer token keeps them out, and it travels in clear text over "
            "http (put a TLS proxy in front on untrusted networks). Host headers accepted: "
            + ", ".join(plan.allowed_hosts)
        )
    return lines


def serve_http(server: MCPServer, plan: HttpPlan, log_level: str) -> None:
    import anyio
    import uvicorn

    config = uvicorn.Config(build_http_app(server, plan), host=plan.host, port=plan.port,
                            log_level=log_level.lower())
    anyio.run(uvicorn.Server(config).serve)


class HostOriginCheck:
    """The SDK's Host/Origin check, for every route and before the token: a request from a hostile web page
    (DNS rebinding, cross-origin) is refused for what it is (421, 403), whatever else it carries."""

    def __init__(self, app: ASGIApp, settings: TransportSecuritySettings) -> None:
        self.app = app
        self._check = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._check.validate_request(Request(scope), is_post=False)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BearerTokenCheck:
    """Every HTTP request must carry `Authorization: Bearer <token>`; else 401 with WWW-Authenticate (RFC 6750)
    and a JSON body saying what was missing."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: the SDK's session manager starts there
            await self.app(scope, receive, send)
            return
        problem = self._problem(Headers(scope=scope).get("authorization"))
        if problem is None:
            await self.app(scope, receive, send)
            return
        await _unauthorized(*problem)(scope, receive, send)

    def _problem(self, header: str | None) -> tuple[str, str] | None:
        """(error code, description) of what is wrong with the Authorization header, or None when it is right."""
        if header is None:
            return "missing_token", "this server requires the header 'Authorization: Bearer <token>'"
        scheme, _, given = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return "invalid_request", "the Authorization header must be 'Bearer <token>'"
        # Constant time: how much of a guess matched must not show in how long the answer takes.
        if not hmac.compare_digest(given.strip().encode("latin-1"), self._token):
            return "invalid_token", "the bearer token is not the one this server was started with"
        return None


def _unauthorized(code: str, description: str) -> JSONResponse:
    challenge = 'Bearer realm="mldebug-mcp"'
    if code != "missing_token":  # RFC 6750: no error attribute when the request carried no credentials
        challenge += f', error="{code}", error_description="{description}"'
    return JSONResponse({"error": code, "error_description": description}, status_code=401,
                        headers={"WWW-Authenticate": challenge})


class InvalidMessageScreen:
    """Answers a POST to the MCP endpoint whose body is not one valid JSON-RPC message with HTTP 400 and the
    JSON-RPC error (jsonrpc_errors): the SDK acknowledges a request with an id of 1.5 or {"a": 1} with 202, as
    a notification, and never answers it."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self._path = path
        # The body is read whole here, so its size is bounded here (the SDK's limit, 413 beyond).
        self._bounded_screen = RequestBodyLimitMiddleware(self._screen, DEFAULT_MAX_REQUEST_BODY_SIZE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._is_json_post(scope):
            await self._bounded_screen(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _is_json_post(self, scope: Scope) -> bool:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self._path:
            return False
        # Other content types are the SDK's to refuse, with its own message.
        return Headers(scope=scope).get("content-type", "").lower().startswith("application/json")

    async def _screen(self, scope: Scope, receive: Receive, send: Send) -> None:
        messages = [await receive()]
        while messages[-1]["type"] == "http.request" and messages[-1].get("more_body", False):
            messages.append(await receive())
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        error = invalid_message_error(body)
        if error is not None:
            # The id stays even when null, as JSON-RPC asks; the unused error data goes.
            payload = {"jsonrpc": "2.0", "id": error.id, "error": error.error.model_dump(mode="json", exclude_none=True)}
            await JSONResponse(payload, status_code=400)(scope, receive, send)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)
