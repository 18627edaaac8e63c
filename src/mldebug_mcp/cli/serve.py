"""`serve`: run the MCP server over stdio (the default) or streamable HTTP."""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from .common import EXIT_OK, Command

WAITING_HINT = ("mldebug MCP server on stdio: waiting for a client (an editor or agent starts it itself; "
                "`mldebug-mcp config CLIENT` prints how to register it). Ctrl-C stops it.")


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="stdio (default) or streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    parser.add_argument(
        "--auth-token", metavar="SOURCE",
        help="where to read the HTTP bearer token, never the token itself (`ps` shows command lines): env:NAME "
        "(an environment variable) or file:PATH (first line of a file only you can read); default: "
        "$MLDEBUG_AUTH_TOKEN when set. Required for a --host other than loopback; once set, every request must "
        "send 'Authorization: Bearer <token>'",
    )
    parser.add_argument(
        "--allowed-host", action="append", metavar="HOST[:PORT]",
        help="a Host header clients may use to reach the HTTP server (repeatable); loopback names and the --host "
        "address are always accepted; required with --host 0.0.0.0 or ::",
    )
    parser.add_argument(
        "--allow-dir", action="append", metavar="DIR",
        help="directory tools may read user files from (repeatable; default: $MLDEBUG_ALLOW_DIRS, else the working "
        "directory)",
    )
    parser.add_argument(
        "--diagnose-python", metavar="PATH",
        help="an interpreter (with torch) diagnose may run besides the server's own and a virtual environment's "
        "inside an allowed directory; default: $MLDEBUG_DIAGNOSE_PYTHON",
    )
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="stderr logging level (default WARNING)")


def run_serve(args: argparse.Namespace) -> int:
    import logging

    from ..server import build_server
    from ..services.paths import AllowedDirs

    # stdout belongs to the protocol on stdio: every log line goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port; use 1-65535")
    plan = _http_plan(args) if args.transport == "http" else _refuse_http_options(args)
    server = build_server(AllowedDirs.from_config(args.allow_dir), args.diagnose_python)
    try:
        if plan is None:
            import anyio

            from ..server.stdio import run_stdio

            if sys.stdin.isatty():  # a person ran it by hand: the silence that follows is not a hang
                print(WAITING_HINT, file=sys.stderr)

            anyio.run(run_stdio, server)
        else:
            from ..server.http import serve_http, startup_notice

            print(*startup_notice(plan), sep="\n", file=sys.stderr)
            serve_http(server, plan, args.log_level)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _http_plan(args: argparse.Namespace):  # -> server.http.HttpPlan, imported only for HTTP
    import os

    from ..server.http import plan_http

    return plan_http(args.host, args.port, args.auth_token, args.allowed_host or [], os.environ)


def _refuse_http_options(args: argparse.Namespace) -> None:
    given = [flag for flag, value in (("--auth-token", args.auth_token), ("--allowed-host", args.allowed_host))
             if value]
    if given:
        verb = "apply" if len(given) > 1 else "applies"
        raise UsageError(f"{' and '.join(given)} {verb} to --transport http only; over stdio only the process "
                         "that started the server can reach it")


# Declared last: each names the functions above.
COMMANDS = (
    Command("serve", "run the MCP server (stdio by default)",
            _serve_arguments, run_serve),
)
