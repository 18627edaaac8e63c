"""Files written for a newer Python than the one running the linter: when a file does not parse, tell that apart
from a plain syntax error, so the fix (run the linter with a newer Python) is named.

The linter parses with the interpreter it runs under. A server installed under Python 3.11 (pipx, an older venv)
meets projects written for 3.12, whose type parameter lists (`class Agent[W: World]:`) and `type` statements
3.11 cannot parse. Only the lines the parser stopped at are read, with strings blanked.
"""

from __future__ import annotations

import re
import sys

MESSAGE = ("this file uses Python {needed} syntax ({what}), which the Python running mldebug-mcp ({running}) cannot "
           "parse")
FIX = ("Run mldebug-mcp with Python {needed} or newer (install it in the project's environment, or e.g. "
       "`uvx --python {needed} mldebug-mcp lint ...`), or exclude the file in [tool.mldebug] exclude.")
_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")
_MARKERS = (  # (version, what, pattern) on a line with its strings emptied and its comment cut
    ((3, 12), "a type parameter list", re.compile(r"^\s*(?:async\s+)?(?:class|def)\s+\w+\s*\[")),
    ((3, 12), "a type statement", re.compile(r"^\s*type\s+\w+\s*(?:\[[^\]]*\])?\s*=")),
)


def newer_syntax(source: str, exc: SyntaxError, running: tuple[int, int] | None = None) -> tuple[str, str] | None:
    """(the Python version needed, what syntax) when the failing lines hold syntax of a Python newer than
    `running` (the interpreter's own by default); None for a plain syntax error."""
    running = running or sys.version_info[:2]
    lines = source.splitlines()
    first = exc.lineno or 1
    for line in lines[first - 1:first + 1]:
        code = _STRING.sub('""', line).split("#", 1)[0]
        for version, what, pattern in _MARKERS:
            if running < version and pattern.search(code):
                return ".".join(map(str, version)), what
    return None
