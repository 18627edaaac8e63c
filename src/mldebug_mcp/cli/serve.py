"""`serve`: run the MCP server over stdio (the default) or streamable HTTP."""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from .common import EXIT_OK, Command


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="stdio (default) or streamable HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    parser.add_argument(
                        "--allow-dir", action="append", metavar="DIR",
                        help="directory tools may read user files from (repeatable; default: $MLDEBUG_ALLOW_DIRS, "
                        "else the working directory)",
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
    server = build_server(AllowedDirs.from_config(args.allow_dir))
    try:
        if args.transport == "stdio":
            import anyio

            from ..server.stdio import run_stdio

            anyio.run(run_stdio, server)
        else:
            print(f"mldebug MCP server on http://{args.host}:{args.port}/mcp", file=sys.stderr)
            server.run("streamable-http", host=args.host, port=args.port)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("serve", "run the MCP server (stdio by default)",
            _serve_arguments, run_serve),
)
