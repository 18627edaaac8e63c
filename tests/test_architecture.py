"""Contracts of the code layout, as ordinary tests: the layers import only downwards, start-up stays light,
and the public API is the one documented.

Layers, top to bottom: faces (cli, server; integrations, the framework callbacks) -> services -> content and render -> cores (citations, lint,
diagnostics, triage, analysis) -> models -> errors. `errors`, `_version`, `_yaml`, `safe_read` and `cache_files` are leaves anyone may import.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import mldebug_mcp

from .import_graph import graph, modules, part

SRC = Path(mldebug_mcp.__file__).parent
GRAPH = graph(SRC)
HEAVY = ("torch", "matplotlib", "numpy")
LEAVES = {"errors", "_version", "_yaml", "safe_read", "cache_files"}  # modules of no layer, importing only other leaves
FACES = {"cli", "server"}
CORES = {"citations", "lint", "diagnostics", "triage", "analysis"}
PUBLIC = [
    "AdviceReport", "ArgdownMap", "ArgdownSyntaxError", "ClaimMatch", "ContentError", "CurveReport", "DebugSpec",
    "DiagnoseError", "DiagnosticCheck", "DiagnosticReport", "EvidenceStore", "Excerpt", "Hypothesis", "MldebugError",
    "Problem", "Quote", "Source", "TriageResult", "TriageStep", "UnknownKeyError", "UsageError", "__version__",
    "analyze_curve", "audit_content", "check_advice", "content_root", "diagnose", "install_skill", "load_store",
    "match_claims", "parse_argdown", "quotes_for_key", "read_curve", "search_quotes", "triage", "triage_step",
]


def _arrows(source_parts: set[str]) -> dict[str, set[str]]:
    """module -> the parts (other than its own and the leaves) it imports, for modules in `source_parts`."""
    found = {}
    for module, targets in GRAPH.items():
        if part(module) in source_parts:
            found[module] = {part(t) for t in targets} - {part(module)} - LEAVES
    return found


def _breaches(source_parts: set[str], allowed: set[str]) -> list[str]:
    return sorted(f"{m} -> {', '.join(sorted(t - allowed))}" for m, t in _arrows(source_parts).items() if t - allowed)


def test_the_graph_sees_imports_inside_functions_and_relative_ones():
    # a self-check of the reader the contracts rely on: server/lint imports its service only inside its tools,
    # services/setup the audit only inside audit(), both with relative imports of two levels
    assert "mldebug_mcp.services.lint" in GRAPH["mldebug_mcp.server.lint"]
    assert "mldebug_mcp.content.audit" in GRAPH["mldebug_mcp.services.setup"]
    assert "mldebug_mcp.models.lint" in GRAPH["mldebug_mcp.lint.engine"]


def test_faces_import_only_services_render_models_and_errors():
    # the CLI also starts the server (`serve`) and reads its tool list for the generated docs
    assert _breaches({"server"}, {"services", "render", "models"}) == []
    assert _breaches({"cli"}, {"services", "render", "models", "server"}) == []


def test_integrations_import_only_services_render_and_models():
    # framework callbacks are a face of their own, in the user's training process
    assert _breaches({"integrations"}, {"services", "render", "models"}) == []


def test_importing_an_integration_loads_neither_its_framework_nor_torch():
    code = ("import sys, mldebug_mcp.integrations.hf, mldebug_mcp.integrations.lightning\n"
            "print(*sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'transformers', 'lightning', 'pytorch_lightning')))")
    assert _loaded(code) == []


def test_render_imports_only_models():
    assert _breaches({"render"}, {"models"}) == []


def test_models_import_only_errors():
    assert _breaches({"models"}, set()) == []


def test_services_import_no_face_and_no_renderer():
    assert _breaches({"services"}, {"models", "content"} | CORES) == []


def test_content_imports_no_service_face_or_renderer():
    assert _breaches({"content"}, {"models"} | CORES) == []


def test_cores_import_no_service_face_renderer_content_or_other_core():
    for core in CORES:
        assert _breaches({core}, {"models"}) == [], core


def test_no_lint_rule_imports_another_rule():
    rules = [m for m in GRAPH if m.startswith("mldebug_mcp.lint.rules.mld")]
    assert len(rules) >= 30
    for rule in rules:
        assert not [t for t in GRAPH[rule] if t.startswith("mldebug_mcp.lint.rules.")], rule


def test_lint_rules_and_helpers_keep_no_module_level_cache():
    """Per-file state lives on the per-file ModuleContext (ctx.memo), never in a module-level dict or list."""
    files = [p for n, p in modules(SRC).items() if n.startswith(("mldebug_mcp.lint.rules.", "mldebug_mcp.lint.helpers."))]
    for path in files:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            empty = isinstance(value, ast.Dict | ast.List) and not (value.keys if isinstance(value, ast.Dict) else value.elts)
            assert not empty, f"{path.name}:{node.lineno}: a module-level empty container is a cache; use ctx.memo"


def test_content_location_is_known_only_to_the_content_package():
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() == "content/__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "\"_content\"" not in text and "parents[2]" not in text, path


def _loaded(code: str) -> list[str]:
    """Names printed by `code` run in a fresh interpreter (the last line of its stdout, split)."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return proc.stdout.split()


def test_importing_the_package_loads_no_submodule_until_a_name_is_used():
    code = ("import sys, mldebug_mcp\n"
            "print(*sorted(m for m in sys.modules if m.startswith('mldebug_mcp')))")
    assert _loaded(code) == ["mldebug_mcp", "mldebug_mcp._version"]


def test_importing_the_lint_engine_loads_no_diagnostics_triage_or_mcp_module():
    code = ("import sys, mldebug_mcp.lint.engine\n"
            "print(*sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic', 'torch')\n"
            "      or m.startswith(('mldebug_mcp.diagnostics', 'mldebug_mcp.triage', 'mldebug_mcp.server'))))")
    assert _loaded(code) == []


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


def test_lint_and_quote_from_the_cli_never_import_pydantic():
    """What keeps `mldebug-mcp lint FILE` and `quote KEY` fast: neither loads pydantic, mcp or markdown-it."""
    example = Path(__file__).resolve().parents[1] / "examples" / "double_softmax" / "buggy.py"
    code = ("import sys, mldebug_mcp.cli as c\n"
            f"c.main(['lint', {str(example)!r}])\n"
            "c.main(['quote', 'jones'])\n"
            "print('LOADED', *sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'mcp', 'markdown_it')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "LOADED", proc.stdout[-500:] + proc.stderr[-2000:]


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


def test_public_api_is_unchanged_and_resolves():
    assert mldebug_mcp.__all__ == PUBLIC
    for name in mldebug_mcp.__all__:
        assert getattr(mldebug_mcp, name) is not None, name
    assert callable(import_module("mldebug_mcp.cli").main)
    assert callable(import_module("mldebug_mcp.server").build_server)


def test_triage_stays_the_function_after_the_core_package_is_imported():
    code = ("import mldebug_mcp.triage.catalogue, mldebug_mcp.services.triage\n"
            "import mldebug_mcp\n"
            "from mldebug_mcp import triage\n"
            "print(callable(triage), callable(mldebug_mcp.triage), mldebug_mcp.triage is triage)")
    assert _loaded(code) == ["True", "True", "True"]


def test_runtime_checks_are_self_contained_for_the_users_interpreter():
    """checks/ runs in another interpreter by path: stdlib, torch and relative imports only."""
    allowed = set(sys.stdlib_module_names) | {"torch", "__future__"}
    for path in (SRC / "diagnostics" / "checks").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
        for node in tree.body:  # torch only inside functions: importing a check costs nothing
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(n.split(".")[0] == "torch" for n in names), f"{path.name}: module-level torch import"


def test_leaves_import_only_other_leaves():
    for leaf in LEAVES:
        assert GRAPH[f"mldebug_mcp.{leaf}"] <= {f"mldebug_mcp.{other}" for other in LEAVES - {leaf}}, leaf
