"""stdio serving that answers every line that is not a valid message with a JSON-RPC error.

The SDK's stdio transport passes a line that is not valid JSON-RPC to the session as an exception
and sends nothing back, and takes a request with an id of 1.5 or {"a": 1} for a notification, which
gets no answer: either way the client waits forever. So this module reads the lines itself, answers
each bad one (jsonrpc_errors: -32700 for text that is not JSON, -32600 with the id where it is
readable), and hands the SDK's transport only the valid ones.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from typing import BinaryIO

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .jsonrpc_errors import invalid_message_error

logger = logging.getLogger(__name__)


async def run_stdio(server: MCPServer) -> None:
    lowlevel = server._lowlevel_server  # private, but the SDK exposes no public hook for this
    with _claimed_stdin() as wire:
        lines = anyio.wrap_file(TextIOWrapper(wire, encoding="utf-8", errors="replace"))
        screen = _LineScreen(lines)
        async with stdio_server(stdin=screen.valid_lines()) as (read_stream, write_stream):  # type: ignore[arg-type]
            screen.answer_on(write_stream)
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


class _LineScreen:
    """Passes the valid lines on to the SDK's transport and answers the others on the protocol's output."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = lines
        self._answers: MemoryObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    def answer_on(self, write_stream: MemoryObjectSendStream[SessionMessage]) -> None:
        # The output stream exists only once the transport runs, and the transport is already reading lines.
        self._answers = write_stream
        self._ready.set()

    async def valid_lines(self) -> AsyncIterator[str]:
        async for line in self._lines:
            error = invalid_message_error(line)
            if error is None:
                yield line
                continue
            logger.warning("answered an invalid line on stdin with error %d: %s", error.error.code, line[:200].rstrip())
            await self._ready.wait()
            assert self._answers is not None
            # Sent from the reading task itself: an answer to the last line is written before input ends.
            await self._answers.send(SessionMessage(message=error))


@contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The protocol's input. While serving, fd 0 reads the null device, so a tool or a child process that
    reads stdin gets end-of-file instead of protocol bytes: the SDK's stdio_server does the same when it
    opens stdin itself, which it does not when handed the lines, as here."""
    if sys.platform == "win32" or not _is_fd(sys.stdin, 0):
        yield sys.stdin.buffer
        return
    import fcntl

    try:
        wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield sys.stdin.buffer
        return
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False, and never closed: a worker thread may still block reading it after serving ends.
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


def _is_fd(stream: object, fd: int) -> bool:
    try:
        return stream.buffer.fileno() == fd  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False
