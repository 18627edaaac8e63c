"""Clean training setups and one-line bug mutations of them, for benchmarking `mldebug-mcp diagnose`."""
