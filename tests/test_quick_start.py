"""The README's Quick start is what CI runs: .ci/run makes a fresh venv from the base interpreter and runs
the Quick start's two commands in it, verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCAFFOLD = ("#", "set ", "cd ", "rc=", "if ", "  ", "fi", "exit", "ANY_PYTHON=", "BASE_PYTHON=", "VENV=",
            '"$BASE_PYTHON" -m venv', "source ")


def _quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.strip().splitlines()]


def test_ci_runs_exactly_the_quick_start_commands():
    setup_line, test_line = _quick_start()
    assert "mldebug-mcp demo" in setup_line and "pytest" in test_line
    script = (ROOT / ".ci" / "run").read_text()
    commands = [line.strip() for line in script.splitlines() if line.strip() and not line.startswith(SCAFFOLD)]
    assert commands == [setup_line, test_line]


def test_ci_runs_them_in_a_fresh_venv_from_the_base_interpreter():
    script = (ROOT / ".ci" / "run").read_text()
    assert "_base_executable" in script and '"$BASE_PYTHON" -m venv "$VENV"' in script
    assert script.index('source "$VENV/bin/activate"') < script.index(_quick_start()[0])
