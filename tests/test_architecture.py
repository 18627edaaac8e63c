"""Contracts of the code layout: no heavy imports at start-up, an honest public API."""

import ast
import subprocess
import sys
from pathlib import Path

import mldebug_mcp

SRC = Path(mldebug_mcp.__file__).parent
HEAVY = ("torch", "matplotlib", "numpy")


def test_cli_quotes_lint_triage_advice_and_curves_never_import_heavy_packages():
    code = (
        "import sys, mldebug_mcp.cli as c\n"
        "c.main(['quote', 'jones/assume-a-bug'])\n"
        "c.main(['audit'])\n"
        "c.main(['triage', '--symptom', 'loss is nan after a while\\nloss = criterion(out, y)\\nloss.backward()'])\n"
        "c.main(['triage', '--answer', 'crash=no', '--json'])\n"
        "c.main(['advice', 'lower the learning rate'])\n"
        f"c.main(['curve', {str(Path(__file__).parent / 'analysis' / 'fixtures' / 'tfevents')!r}])\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "print('HEAVY', bad, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "HEAVY []" in proc.stderr, proc.stderr


def test_public_api_is_sorted_and_resolves():
    assert mldebug_mcp.__all__ == sorted(mldebug_mcp.__all__)
    for name in mldebug_mcp.__all__:
        assert hasattr(mldebug_mcp, name), name


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(("." * node.level) + node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_pure_cores_do_not_import_the_cli_or_server():
    for folder in ("citations", "audit", "triage", "analysis"):
        for path in (SRC / folder).glob("*.py"):
            for module in _imports(path):
                assert not module.lstrip(".").startswith(("cli", "server", "mldebug_mcp.cli")), f"{path.name}: {module}"


def test_content_location_is_known_only_to_content_module():
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() == "content/__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "\"_content\"" not in text and "parents[2]" not in text, path


def test_runtime_checks_are_self_contained_for_the_users_interpreter():
    """checks/ runs in another interpreter by path: stdlib, torch and relative imports only."""
    import sys as _sys

    allowed = set(_sys.stdlib_module_names) | {"torch", "__future__"}
    for path in (SRC / "diagnostics" / "checks").glob("*.py"):
        for module in _imports(path):
            if module.startswith("."):
                continue
            assert module.split(".")[0] in allowed, f"{path.name} imports {module}"


def test_runtime_checks_import_torch_only_inside_functions():
    for path in (SRC / "diagnostics" / "checks").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(n.split(".")[0] == "torch" for n in names), f"{path.name}: module-level torch import"


def test_package_import_and_server_build_stay_free_of_torch():
    code = (
        "import sys, mldebug_mcp\n"
        "from mldebug_mcp.server import build_server\n"
        "build_server()\n"
        "from mldebug_mcp import DebugSpec, diagnose\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "print('HEAVY', bad, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "HEAVY []" in proc.stderr, proc.stderr
