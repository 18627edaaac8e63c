"""The only door into the cores, shared by the CLI, the MCP server and the Python API: one module per
family. Services read files and bundled content, check paths against the allow-list and cache; the
cores they call stay pure."""
