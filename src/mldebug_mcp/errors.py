"""One exception hierarchy for the whole package.

    MldebugError                 base: every error this package raises on purpose
    ├── UsageError               bad input from a caller (CLI argument, tool parameter)
    │   └── UnknownKeyError      a source key or excerpt id that does not exist
    ├── DiagnoseError            the user's debug setup could not be run to the end (their
    │                            exception, a timeout, the memory limit, a crash)
    └── ContentError             bundled or user content that cannot be read as specified
        └── ArgdownSyntaxError   malformed Argdown, with the line number

Messages say what was wrong and what would work instead: the CLI prints them as
they are and the MCP server passes them to the agent.
"""

from __future__ import annotations


class MldebugError(Exception):
    """Base class of every error this package raises on purpose."""


class UsageError(MldebugError):
    """A caller passed something that cannot work; the message names the fix."""


class UnknownKeyError(UsageError):
    """A source key or excerpt id that does not exist; carries close matches."""

    def __init__(self, kind: str, key: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.key = key
        self.suggestions = suggestions
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(
            f"unknown {kind} {key!r}.{hint} Every source: `mldebug-mcp quote --list` (MCP tool: list_sources)."
        )


class DiagnoseError(MldebugError):
    """The diagnosed code did not produce a report; carries the user-code part of the traceback."""

    def __init__(self, message: str, frames: list[str] | None = None, output_tail: str = "") -> None:
        self.frames = frames or []
        self.output_tail = output_tail
        lines = [message] + [f"  {f}" for f in self.frames]
        if output_tail:
            lines.append("last output of the diagnosed process:\n" + output_tail)
        super().__init__("\n".join(lines))


class ContentError(MldebugError):
    """Content (skill, references, evidence) that does not follow its format."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class ArgdownSyntaxError(ContentError):
    """Argdown input the parser cannot accept; `line` is 1-based."""
