"""A Jupyter notebook as one Python module: its code cells joined in order, IPython syntax blanked, and
every line of the module traced back to its cell.

Joining the cells lets the dataflow checks see a model built in one cell and its loss in another, as
the kernel does; IPython syntax is replaced line for line (ipython.py), so every line keeps its number
and each finding is placed back in its cell. nbformat reads the file; it is imported only when a
notebook is met (its import costs about 100 ms, which `lint` on .py files does not pay).
"""

from __future__ import annotations

import dataclasses
import re
import warnings

from ..models.lint import Finding
from .ipython import python_lines

# Outputs (images, tables, logs) make notebooks far larger than their code; they are parsed as JSON
# and dropped, which costs a few times their size in memory, so 20 MiB stays under about 200 MB.
MAX_NOTEBOOK_BYTES = 20 << 20
LINE_IN_MESSAGE = re.compile(r"(?<![\w.])line (\d+)\b")  # how rule messages name another line


class NotANotebook(ValueError):
    """The bytes are not a notebook nbformat can read; the message says what is wrong."""


@dataclasses.dataclass(frozen=True)
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


def in_cells(findings: list[Finding], notebook: NotebookModule | None) -> list[Finding]:
    """Findings on the joined module placed in the notebook's cells: line and col within the cell, and a
    line a message names ("the optimizer built on line 40") named by its cell too."""
    if notebook is None:
        return findings
    placed = []
    for f in findings:
        cell, line = notebook.place(f.line)
        end_cell, end_line = notebook.place(f.end_line)
        end_line, end_col = (end_line, f.end_col) if end_cell == cell else (line, f.col)
        message = LINE_IN_MESSAGE.sub(lambda m, here=cell: _cell_line(notebook, int(m.group(1)), here), f.message)
        placed.append(dataclasses.replace(f, cell=cell, line=line, end_line=end_line, end_col=end_col, message=message))
    return placed


def _cell_line(notebook: NotebookModule, module_line: int, here: int) -> str:
    cell, line = notebook.place(module_line)
    return f"line {line}" if cell == here else f"cell {cell}, line {line}"
