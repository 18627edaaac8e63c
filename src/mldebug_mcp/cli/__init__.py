"""Command line: argv -> service -> render -> exit code. One module per command family owns its
subcommands (argparse parsers and handlers); the services behind them load on first use, so a
command pays only for what it runs.

Exit codes: 0 success, 1 findings / no match / audit problems, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .._version import __version__
from ..errors import MldebugError
from . import advice, curves, demo, diagnose, evidence, lint, serve, setup, triage
from .output import EXIT_OK, EXIT_USAGE

# The order of `mldebug-mcp --help`.
FAMILIES = (evidence, lint, diagnose, triage, advice, curves, demo, setup, serve)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mldebug-mcp",
        description="Debug ML training the way practitioners do: lint, runtime diagnostics, triage, cited quotes, "
                    "the MCP server and the skill.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for family in FAMILIES:
        family.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.handler(args)
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (MldebugError, OSError) as exc:
        print(f"mldebug-mcp {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
