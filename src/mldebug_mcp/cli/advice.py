"""`advice`: flag the anti-patterns in a proposed fix or a draft answer."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError
from .common import EXIT_FINDINGS, EXIT_OK, Command, emit_json, text_argument


def _advice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="?", help="the proposed fix; '-' reads stdin")
    parser.add_argument("--file", type=Path, help="read the text (prose, code or both) from a file")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-quotes", action="store_true", help="evidence ids instead of quotes")


def run_advice(args: argparse.Namespace) -> int:
    from ..render.advice import advice_text, evidence_keys
    from ..services.advice import check_advice
    from ..services.evidence import quotes_for

    if (args.text is None) == (args.file is None):
        raise UsageError("give the text to check (or '-' for stdin), or --file PATH, but not both")
    text = args.file.read_text(encoding="utf-8") if args.file is not None else text_argument(args.text)
    report = check_advice(text)
    if args.json:
        emit_json(report.model_dump())
    else:
        quotes = None if args.no_quotes else quotes_for(evidence_keys(report))
        print(advice_text(report, quotes))
    return EXIT_OK if report.clean else EXIT_FINDINGS


# Declared last: each names the functions above.
COMMANDS = (
    Command("advice", "flag anti-patterns in a proposed fix or a draft answer",
            _advice_arguments, run_advice,
            description="Exit codes: 0 clean, 1 anti-patterns found, 2 usage error."),
)
