"""Python 2 files: when a file does not parse, tell Python 2 syntax apart from a plain syntax error.

Only the lines the parser stopped at are read, with string literals and comments blanked, so a Python 3
file with an ordinary typo is still reported as a syntax error.
"""

from __future__ import annotations

import re

MESSAGE = "Python 2 syntax cannot be linted ({what}); the checks read Python 3 code only"
FIX = ("Port the file to Python 3 (2to3, shipped with Python 3.12 and older, does most of it), or exclude it "
       "in [tool.mldebug] exclude.")
# Python 3's own messages for two statements Python 2 had (their wording has held since 3.6)
_MESSAGES = (("Missing parentheses in call to 'print'", "print statement"),
             ("Missing parentheses in call to 'exec'", "exec statement"))
_STRING = re.compile(r"""(?P<prefix>\b[A-Za-z]{1,2})?(?P<quote>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
_MARKERS = (  # (what, pattern), matched against a line with its strings emptied and its comment cut
    ("print statement", re.compile(r"^\s*print\s*(?:>>|[\"'\w`-])")),
    ("exec statement", re.compile(r"^\s*exec\s+[\"'\w]")),
    ("'except X, e:'", re.compile(r"^\s*except\s+\(?[\w., ]+?\)?\s*,\s*[A-Za-z_]\w*\s*:")),
    ("'raise E, message'", re.compile(r"^\s*raise\s+[\w.]+(?:\(\))?\s*,")),
    ("backtick repr", re.compile(r"`")),
    ("'<>' operator", re.compile(r"<>")),
    ("octal literal without 0o", re.compile(r"(?<![\w.])0+[1-7][0-7]*(?![\w.])")),
    ("long integer literal", re.compile(r"(?<![\w.])(?:0[xX][0-9a-fA-F]+|\d+)[lL](?!\w)")),
)


def python2_syntax(source: str, exc: SyntaxError) -> str | None:
    """What Python 2 syntax the failing lines hold ("print statement", ...), or None for a plain syntax error."""
    for text, what in _MESSAGES:
        if exc.msg.startswith(text):
            return what
    lines = source.splitlines()
    first = exc.lineno or 1
    last = min(max(exc.end_lineno or first, first), first + 4)
    for line in lines[first - 1:last]:
        if any(m.group("prefix") and m.group("prefix").lower() == "ur" for m in _STRING.finditer(line)):
            return "'ur' string prefix"
        code = _STRING.sub('""', line).split("#", 1)[0]
        for what, pattern in _MARKERS:
            if pattern.search(code):
                return what
    return None


# PyTorch before 0.4 spelled non_blocking `async`: `x.cuda(async=True)`. Since Python 3.7 `async` is a
# keyword, so such a file no longer parses although nothing else in it is wrong. The argument is renamed to
# an identifier of the same length, so every line and column stays where it was.
_ASYNC_ARGUMENT = re.compile(r"(?<=[(,\s])async(?=\s*=(?!=))")


def without_async_arguments(source: str) -> str | None:
    """The source with each `async=` keyword argument renamed, or None when it has none."""
    renamed = _ASYNC_ARGUMENT.sub("Async", source)
    return renamed if renamed != source else None

