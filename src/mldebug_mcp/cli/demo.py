"""`demo`: lint and diagnose a bundled buggy example, each finding with its evidence."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_OK, Command, progress_printer


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--example", default="double_softmax", help="bundled example folder (default double_softmax)")


def run_demo(args: argparse.Namespace) -> int:
    import anyio

    from ..render.demo import demo_text, evidence_keys
    from ..services.demo import run_demo as run
    from ..services.evidence import quotes_for

    print("linting and diagnosing a bundled buggy example (a few seconds)...", file=sys.stderr)
    path, lint_report, report = anyio.run(lambda: run(args.example, on_progress=progress_printer(False)))
    print(demo_text(path, lint_report, report, quotes_for(evidence_keys(lint_report, report))))
    return EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("demo", "lint and diagnose a bundled buggy example, with the evidence",
            _demo_arguments, run_demo),
)
