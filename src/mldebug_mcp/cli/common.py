"""What every command shares: how a command is declared, exit codes, JSON output, text from stdin."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class Command:
    """A subcommand. main() builds the parser of the command being run alone (of all of them when help is
    asked for): most of argparse's start-up cost is building parsers."""

    __slots__ = ("name", "help", "arguments", "handler", "description")

    def __init__(self, name: str, help: str, arguments: Callable[[argparse.ArgumentParser], None],
                 handler: Callable[[argparse.Namespace], int], description: str | None = None) -> None:
        self.name, self.help, self.arguments, self.handler, self.description = name, help, arguments, handler, description


def emit_json(payload: object) -> None:
    import json  # only for --json: it costs start-up time

    print(json.dumps(payload, indent=2, ensure_ascii=False))


def text_argument(value: str | None) -> str:
    """The value itself, or standard input for '-'."""
    if value == "-":
        return sys.stdin.read()
    return value or ""


def progress_printer(force: bool) -> Callable[[int, int, str], None] | None:
    """`[i/n] check` lines on stderr while diagnose runs, when someone is watching (or asked)."""
    if not (force or sys.stderr.isatty()):
        return None

    def show(index: int, total: int, check: str) -> None:
        if check != "done":
            print(f"[{index + 1}/{total}] {check}", file=sys.stderr, flush=True)

    return show
