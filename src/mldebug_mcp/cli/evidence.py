"""`quote`: verbatim quotes from the primary sources, by key, claim or search; `--list` the sources."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_FINDINGS, EXIT_OK, Command, emit_json


def _quote_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", nargs="?", help="source key (jones) or excerpt id (jones/assume-a-bug)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--claim", metavar="TEXT", help="claims of the evidence map matching TEXT, with their quotes")
    mode.add_argument("--search", metavar="TEXT", help="search the text of every excerpt")
    mode.add_argument("--list", action="store_true", help="list every source")
    parser.add_argument("--credence", choices=["high", "medium", "low"],
                        help="with --list: only sources of this credence")
    parser.add_argument("--json", action="store_true", help="machine-readable output (what the MCP tool returns)")
    parser.add_argument("--limit", type=int, default=10, help="most results for --search/--claim (default 10)")


def run_quote(args: argparse.Namespace) -> int:
    from ..render import evidence as render
    from ..services import evidence as service

    if args.list:
        sources = service.list_sources(args.credence)
        if args.json:
            emit_json(sources.model_dump())
        else:
            print(render.source_list_text(sources))
        return EXIT_OK
    result = service.quote_lookup(key=args.key, claim=args.claim, search=args.search, limit=args.limit)
    found = bool(result.quotes or result.claims)
    if args.json:
        emit_json(result.model_dump())
    elif found:
        print(render.quote_result_text(result))
    else:
        print(render.quote_result_text(result), file=sys.stderr)
    return EXIT_OK if found else EXIT_FINDINGS


# Declared last: each names the functions above.
COMMANDS = (
    Command("quote", "verbatim quotes from the primary sources",
            _quote_arguments, run_quote,
            description="`quote jones` lists a source's excerpts; `quote jones/assume-a-bug` gives one. Exit "
                        "codes: 0 found, 1 nothing matched, 2 usage error."),
)
