"""`python -m mldebug_mcp` is the CLI."""

import sys

from .cli import main

# Guarded: the server's worker processes import the main module again, and must not run the CLI.
if __name__ == "__main__":
    sys.exit(main())
