"""What every command shares: exit codes, JSON output, reading text from an argument or stdin."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def emit_json(payload: object) -> None:
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
