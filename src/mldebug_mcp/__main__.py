"""`python -m mldebug_mcp` is the CLI."""

import sys

from .cli import main

sys.exit(main())
