"""Python code pasted into a description, recovered so the linter can look at it.

Forum posts mix prose and code, often without fences and with broken indentation. We take fenced
blocks when there are any, otherwise runs of code-looking lines, and drop lines that do not parse
until the rest does: a partial program still shows a softmax before the loss."""

from __future__ import annotations

import ast
import re
import textwrap

_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.S)
_CODE_LINE = re.compile(
    r"^\s*(?:>>> |\.\.\. )?(?:import \w|from [\w.]+ import|def \w+\(|class \w+|for .+ in .+:|if .+:|elif .+:|else:|while .+:"
    r"|with .+:|try:|except\b|return\b|@\w|#|[\w.\[\]]+(?:\s*,\s*[\w.\[\]]+)*\s*(?:=|\+=|-=)\s*\S|[\w.]+\(.*\)\s*$|print\()"
)
# Tracebacks and printed numbers: neither prose nor code, and full of words that would mislead matching.
_LOG_LINE = re.compile(r'^\s*(?:File "|Traceback|\w+Error\b|[\w /:=,.\[\]{}()-]*\d[\d.e+-]*\s*$)')
MAX_REPAIRS = 25  # lines dropped before giving up on a snippet
MIN_LINES = 2     # one stray code-like line in prose is not worth linting


def extract_code(text: str) -> list[str]:
    """Parseable Python snippets found in the text (possibly none)."""
    blocks = _FENCE.findall(text) or _code_runs(text)
    snippets = []
    for block in blocks:
        repaired = _repair(textwrap.dedent(block.replace("\t", "    ")).strip("\n"))
        if repaired:
            snippets.append(repaired)
    return snippets


def prose_of(text: str) -> str:
    """The text without fenced blocks and code-looking lines: what the person wrote in words."""
    without_fences, _ = _unfenced(text)
    return "\n".join(line for line in without_fences.splitlines() if not _pasted_line(line))


def pasted_of(text: str) -> str:
    """What prose_of leaves out: the fenced blocks (an unclosed one to the end) and the code-looking and log lines."""
    without_fences, blocks = _unfenced(text)
    return "\n".join([*blocks, *(line for line in without_fences.splitlines() if _pasted_line(line))])


def _unfenced(text: str) -> tuple[str, list[str]]:
    """The text outside fenced blocks, and the blocks' contents. An unclosed fence (a truncated post) is cut at
    the fence, since what follows is code: that tail is the last block."""
    blocks = _FENCE.findall(text)
    without_fences = _FENCE.sub("\n", text)
    if without_fences.count("```") % 2:
        without_fences, tail = without_fences.split("```", 1)
        blocks.append(tail)
    return without_fences, blocks


def _pasted_line(line: str) -> bool:
    return bool(_CODE_LINE.match(line) or _LOG_LINE.match(line))


def _code_runs(text: str) -> list[str]:
    runs, current = [], []
    for line in text.splitlines():
        if _CODE_LINE.match(line) or (current and line.startswith((" ", "\t")) and line.strip()):
            current.append(re.sub(r"^(\s*)(?:>>> |\.\.\. )", r"\1", line))
        elif current and not line.strip():
            current.append("")
        else:
            if len([c for c in current if c.strip()]) >= MIN_LINES:
                runs.append("\n".join(current))
            current = []
    if len([c for c in current if c.strip()]) >= MIN_LINES:
        runs.append("\n".join(current))
    return runs


def _repair(code: str) -> str | None:
    lines = code.splitlines()
    for _ in range(MAX_REPAIRS):
        source = "\n".join(lines)
        try:
            ast.parse(source)
        except SyntaxError as exc:
            bad = (exc.lineno or 1) - 1
            if not 0 <= bad < len(lines):
                return None
            # An unparseable block opener would orphan its body; replacing it with `if True:` keeps the
            # body's structure, and any other line is simply dropped.
            lines[bad:bad + 1] = [] if not lines[bad].rstrip().endswith(":") else [
                re.match(r"\s*", lines[bad]).group(0) + "if True:"]
            if not any(line.strip() for line in lines):
                return None
            continue
        return source if len([line for line in lines if line.strip()]) >= MIN_LINES else None
    return None
