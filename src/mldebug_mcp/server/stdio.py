"""stdio serving that answers unparseable lines with a JSON-RPC parse error.

The SDK's stdio transport passes a line that is not valid JSON-RPC to the session as an
exception and sends nothing back, so a client waits forever. JSON-RPC 2.0 asks for a
-32700 error with a null id; this wrapper sends it and keeps serving.
"""

from __future__ import annotations

import logging

import anyio
from mcp.server import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import PARSE_ERROR, ErrorData, JSONRPCError

logger = logging.getLogger(__name__)


async def run_stdio(server: MCPServer) -> None:
    lowlevel = server._lowlevel_server  # noqa: SLF001 - the SDK exposes no public hook for this
    async with stdio_server() as (read_stream, write_stream):
        forward_send, forward_receive = anyio.create_memory_object_stream(0)

        async def screen() -> None:
            async with forward_send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        logger.warning("unparseable message on stdin: %s", str(item)[:200])
                        error = JSONRPCError(jsonrpc="2.0", id=None,
                                             error=ErrorData(code=PARSE_ERROR, message=f"Parse error: {str(item)[:200]}"))
                        await write_stream.send(SessionMessage(message=error))
                    else:
                        await forward_send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(screen)
            await lowlevel.run(forward_receive, write_stream, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
