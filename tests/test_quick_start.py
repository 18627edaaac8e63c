"""The README's Quick start is what CI runs: its test command is the one line .ci/run executes."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_exactly_the_quick_start_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.S).group(1)
    setup_line, test_line = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert "mldebug-mcp demo" in setup_line and "pytest" in test_line
    commands = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
                if line.strip() and not line.startswith(("#", "set ", "cd ", "rc=", "if ", "  ", "fi", "exit"))]
    assert commands == [test_line]
