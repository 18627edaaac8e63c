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


# PEP 701 (3.12): an f-string may reuse its own quote inside a replacement field, `f"{d.strftime("%Y")}"`, and a
# single-quoted f-string's field may run over several lines; 3.11 reports either as an f-string or string error
_FSTRING_OWN_QUOTE = re.compile(r"""\b[fF][rR]?(["'])[^"'\n]*?\{[^}\n]*\1""")
_FSTRING_OPEN_FIELD = re.compile(r"""\b[fF][rR]?(["'])[^"'\n]*\{[^}\n]*$""")
_FSTRING_ERRORS = ("f-string", "unterminated string literal")


def newer_syntax(source: str, exc: SyntaxError, running: tuple[int, int] | None = None) -> tuple[str, str] | None:
    """(the Python version needed, what syntax) when the failing lines hold syntax of a Python newer than
    `running` (the interpreter's own by default); None for a plain syntax error."""
    running = running or sys.version_info[:2]
    lines = source.splitlines()
    first = exc.lineno or 1
    if running < (3, 12) and (exc.msg or "").startswith(_FSTRING_ERRORS) and first <= len(lines):
        line = lines[first - 1]
        if _FSTRING_OWN_QUOTE.search(line) or _FSTRING_OPEN_FIELD.search(line.rstrip()):
            return "3.12", "an f-string that reuses its quotes or spans lines inside {}"
    for line in lines[first - 1:first + 1]:
        code = _STRING.sub('""', line).split("#", 1)[0]
        for version, what, pattern in _MARKERS:
            if running < version and pattern.search(code):
                return ".".join(map(str, version)), what
    return None


def newer_python_problem(source: str, exc: SyntaxError) -> tuple[str, str] | None:
    """(the finding's message, its fix) when the file is newer Python than the interpreter running the linter."""
    newer = newer_syntax(source, exc)
    if newer is None:
        return None
    needed, what = newer
    running = ".".join(map(str, sys.version_info[:2]))
    return MESSAGE.format(needed=needed, what=what, running=running), FIX.format(needed=needed)
