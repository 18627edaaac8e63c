"""Command line: argv -> service -> render -> exit code. One module per command family declares its
subcommands (arguments and handler); the services behind them load on first use, and only the command
being run gets its arguments added, so a command pays only for what it runs.

Exit codes: 0 success, 1 findings / no match / audit problems, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
from collections.abc import Sequence
from importlib import import_module

from .._version import __version__
from ..errors import MldebugError
from .common import EXIT_OK, EXIT_USAGE, Command

# Command family module -> the commands it declares (its COMMANDS; a test keeps the two in step), in the order
# of `mldebug-mcp --help`. Naming them here lets a run import the one family it needs.
FAMILIES = {
    "evidence": ("quote",),
    "lint": ("lint", "rules", "explain"),
    "diagnose": ("diagnose",),
    "triage": ("triage",),
    "advice": ("advice",),
    "curves": ("curve",),
    "sweep": ("sweep",),
    "landscape": ("landscape",),
    "demo": ("demo",),
    "setup": ("audit", "install-skill", "config"),
    "serve": ("serve",),
}


def commands(family: str) -> tuple[Command, ...]:
    return import_module(f"{__name__}.{family}").COMMANDS


def _parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the command named first in argv alone; of every command when none is named, so that
    help and the error for an unknown command stay complete (most of argparse's cost is building parsers)."""
    parser = argparse.ArgumentParser(
        prog="mldebug-mcp",
        description="Debug ML training the way practitioners do: lint, runtime diagnostics, triage, cited quotes, "
                    "the MCP server and the skill.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = next((a for a in argv if not a.startswith("-")), None)
    family = next((f for f, names in FAMILIES.items() if named in names), None)
    if family is not None:
        chosen = [c for c in commands(family) if c.name == named]
    else:
        chosen = [c for f in FAMILIES for c in commands(f)]
    for command in chosen:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.description)
        sub.set_defaults(handler=command.handler)
        command.arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # At exit the interpreter makes one last full collection over every object the imports created, a tenth of
    # a `lint` run. The process is ending: freeze them out of its reach (nothing is freed that would outlive it).
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    _escape_unprintable_output()
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(argv)
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


def _escape_unprintable_output() -> None:
    """A file name that is not UTF-8 (or any text the terminal's encoding lacks) is printed escaped,
    \udcff, instead of ending the run with UnicodeEncodeError after the work is done."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
