"""A Jupyter notebook as one Python module: its code cells joined in order, IPython syntax blanked, and
every line of the module traced back to its cell.

Joining the cells lets the dataflow checks see a model built in one cell and its loss in another, as
the kernel does. IPython lines (`%magic`, `!shell`, `x = !cmd`, `obj?`) become `pass` at their own
indent, and cells run by another interpreter (`%%bash`, `%%writefile`) become blank lines, so every
line keeps its number. nbformat reads the file; it is imported only when a notebook is met (its
import costs about 100 ms, which `lint` on .py files does not pay).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

# Outputs (images, tables, logs) make notebooks far larger than their code; they are parsed as JSON
# and dropped, which costs a few times their size in memory, so 20 MiB stays under about 200 MB.
MAX_NOTEBOOK_BYTES = 20 << 20
# Cell magics whose body is Python run in the kernel (or a Python subprocess); any other cell magic
# hands its body to another program and the cell is not checked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy"})
# No Python statement starts with these; in IPython they are magics, shell escapes, help and autocall.
_ESCAPES = ("%", "!", "?", "/", ",", ";")
_CAPTURED = re.compile(r"\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")  # files = !ls, t = %time f()
_NEWLINE = re.compile(r"\r\n|\r|\n")


class NotANotebook(ValueError):
    """The bytes are not a notebook nbformat can read; the message says what is wrong."""


@dataclass(frozen=True)
class NotebookModule:
    """The Python text of a notebook's code cells and where each of its lines came from."""

    source: str
    origins: tuple[tuple[int, int], ...]
    """For line n of `source` (1-based), origins[n - 1] is (cell number, line within the cell), both 1-based;
    cells are numbered as the notebook shows them, markdown and raw cells included."""
    language: str
    """The kernel's language as the notebook records it ("python" when it records none)."""

    @property
    def is_python(self) -> bool:
        return self.language.startswith(("python", "ipython"))

    def place(self, line: int) -> tuple[int, int]:
        """(cell, line within the cell) of a line of `source`; past the end, the last line."""
        if not self.origins:
            return 1, 1
        return self.origins[min(max(line, 1), len(self.origins)) - 1]


def read_notebook(data: bytes) -> NotebookModule:
    """The code cells of notebook JSON as one module; NotANotebook when nbformat cannot read it."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotANotebook(f"not UTF-8: byte {exc.start} cannot be decoded") from None
    import nbformat  # only here: most runs meet no notebook

    try:
        with warnings.catch_warnings():  # missing cell ids and other fixes nbformat makes while reading
            warnings.simplefilter("ignore")
            notebook = nbformat.reads(text, as_version=4)
        cells = list(notebook["cells"])
    except nbformat.reader.NotJSONError:
        raise NotANotebook("not a Jupyter notebook: the file is not JSON") from None
    # nbformat raises KeyError, AttributeError, jsonschema's ValidationError... on JSON of the wrong shape
    except Exception as exc:  # noqa: BLE001
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise NotANotebook(f"not a Jupyter notebook nbformat can read: {reason[:200]}") from None
    lines: list[str] = []
    origins: list[tuple[int, int]] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotANotebook(f"cell {number}: its source is {type(source).__name__}, not text")
        cell_lines = python_lines(source)
        lines.extend(cell_lines)
        origins.extend((number, n) for n in range(1, len(cell_lines) + 1))
    return NotebookModule("".join(line + "\n" for line in lines), tuple(origins), _language(notebook))


def _language(notebook) -> str:
    metadata = notebook.get("metadata") or {}
    info = metadata.get("language_info") or {}
    kernel = metadata.get("kernelspec") or {}
    name = (info.get("name") if isinstance(info, dict) else None) or \
        (kernel.get("language") if isinstance(kernel, dict) else None) or "python"
    return str(name).lower()


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
