"""IPython syntax in a code cell replaced line for line by Python, so a cell parses and keeps its line numbers.

`%magic`, `!shell`, `x = !cmd`, `obj?` become `pass` at their own indent (a block whose only statement was
a magic stays valid); a cell run by another program (`%%bash`, `%%writefile`) becomes blank lines. Only
lines that start a statement are IPython's: inside brackets or a string, `%` is Python's modulo and `!`
is text, so brackets, strings and backslashes are followed from line to line.
"""

from __future__ import annotations

import re

# Cell magics whose body is Python run in the kernel (or a Python subprocess); any other cell magic
# hands its body to another program and the cell is not checked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy"})
# No Python statement starts with these; in IPython they are magics, shell escapes, help and autocall.
_ESCAPES = ("%", "!", "?", "/", ",", ";")
_CAPTURED = re.compile(r"\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")  # files = !ls, t = %time f()
_NEWLINE = re.compile(r"\r\n|\r|\n")


def python_lines(cell: str) -> list[str]:
    """The lines of one code cell with IPython syntax replaced, as many as the cell has."""
    lines = _NEWLINE.split(cell)
    if lines and lines[-1] == "":
        lines.pop()  # the newline ending the last line starts no line of its own
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].startswith("%%"):
        magic = lines[first][2:].split(maxsplit=1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return [""] * len(lines)  # the body is bash, HTML, a file to write...: not Python
        lines[first] = ""
    return _blank_ipython_lines(lines)


def _blank_ipython_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    scanner = _Scanner()
    skipping = False  # inside an IPython line continued with a backslash
    for line in lines:
        starts_statement = scanner.at_statement_start()
        if skipping:
            out.append("")
            skipping = line.endswith("\\")
            continue
        if starts_statement and _is_ipython(line):
            out.append(_pass(line))
            skipping = line.endswith("\\")
            continue
        last = scanner.feed(line)
        if starts_statement and last == "?" and scanner.at_statement_start():
            out.append(_pass(line))  # obj? and obj?? ask for help
            continue
        out.append(line)
    return out


def _is_ipython(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(_ESCAPES) or _CAPTURED.match(line) is not None


def _pass(line: str) -> str:
    # `pass` at the line's own indent keeps a block whose only statement was a magic valid
    return line[: len(line) - len(line.lstrip())] + "pass"


class _Scanner:
    """Follows brackets, strings and backslashes line by line, to tell where a statement starts: a line
    inside an open bracket or string continues a statement, and `%` there is Python's modulo."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's delimiter: ', ", ''' or \"\"\"
        self.joined = False  # the previous line ended with a backslash

    def at_statement_start(self) -> bool:
        return self.depth == 0 and not self.quote and not self.joined

    def feed(self, line: str) -> str:
        """Scan one line; the last character of code on it (comments and strings excluded)."""
        last, i, n = "", 0, len(line)
        while i < n:
            ch = line[i]
            if self.quote:
                if ch == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = ""
                    last = "'"
                    continue
            elif ch == "#":
                break
            elif ch in "'\"":
                self.quote = line[i:i + 3] if line[i:i + 3] in ("'''", '"""') else ch
                i += len(self.quote)
                continue
            elif not ch.isspace():
                last = ch
                if ch in "([{":
                    self.depth += 1
                elif ch in ")]}":
                    self.depth = max(0, self.depth - 1)
            i += 1
        self.joined = not self.quote and last == "\\" and line.endswith("\\")
        if self.quote in ("'", '"') and not line.endswith("\\"):
            self.quote = ""  # a one-line string ends with its line (Python reports the error, not us)
        return last
