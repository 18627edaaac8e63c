"""The MCP server face: `build_server` assembles the tools, resources and prompts of each family."""

from .app import build_server

__all__ = ["build_server"]
