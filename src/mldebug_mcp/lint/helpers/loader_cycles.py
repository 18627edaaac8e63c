"""Endless cyclers of a loader (MLD054): a generator that starts a pass over the loader it is handed again and
again, so each pass is an epoch that set_epoch never announces."""

import ast

from ..context import ModuleContext

LOADER_WORDS = ("loader", "dl")


def endless_passes(ctx: ModuleContext) -> list[ast.While]:
    """`while True:` loops of this file's functions that start a pass over a loader parameter again and again
    (`for batch in dataloader: yield batch`, `g = iter(dataloader)` after StopIteration): endless cyclers."""
    found = []
    for loop in ctx.by_type.get(ast.While, ()):
        if not (isinstance(loop.test, ast.Constant) and loop.test.value):
            continue
        func = ctx.enclosing(loop, (ast.FunctionDef, ast.AsyncFunctionDef))
        params = {a.arg for a in func.args.posonlyargs + func.args.args} if func is not None else set()
        loaders = {p for p in params if any(w in p.lower() for w in LOADER_WORDS)}
        for node in ast.walk(loop):
            source = node.iter if isinstance(node, ast.For | ast.AsyncFor) else node.value if isinstance(
                node, ast.YieldFrom) else node.args[0] if isinstance(node, ast.Call) and isinstance(
                node.func, ast.Name) and node.func.id == "iter" and node.args else None
            if isinstance(source, ast.Name) and source.id in loaders:
                found.append(loop)
                break
    return found
