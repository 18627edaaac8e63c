"""The baseline for server_latency.py: the smallest useful MCPServer, one tool, stdio."""

from mcp.server import MCPServer

server = MCPServer(name="minimal")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    server.run()
