"""The package's import graph, read from the source with ast: which of its modules each module imports,
at module level or inside a function, relative imports resolved. Used by the contract tests and by
benchmarks/architecture.py."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "mldebug_mcp"


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(src: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module of the package at `src`."""
    return {module_name(p, src): p for p in sorted(src.rglob("*.py"))}


def imported_modules(path: Path, name: str, known: set[str]) -> set[str]:
    """The package's modules `path` imports anywhere in the file."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # `from . import x` names a module when x is one, else something of the package itself
            targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in known else stem for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph(src: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    files = modules(src)
    known = set(files)
    return {name: imported_modules(path, name, known) for name, path in files.items()}


def part(module: str) -> str:
    """The top-level part a module belongs to: a root module or a first-level package."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"
