"""A second name bound to a tensor, written in place and compared with the first by a loss (MLD037)."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import is_loss_call

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)
# in-place methods that change a tensor's flags, not its values
NOT_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})


def alias_compared(alias: ast.Assign, ctx: ModuleContext) -> ast.Call | None:
    """For `target = prediction`: the loss call taking both names, when `target` is written in place (item
    assignment or an in-place method) between them and neither name is bound again; else None."""
    target, prediction = alias.targets[0].id, alias.value.id
    scope = ctx.enclosing(alias, SCOPES)
    if scope is None:
        return None
    events = _events(scope, ctx)
    start = alias.end_lineno or alias.lineno
    written = False
    for line, kind, name, node in events:
        if line <= start or name not in (target, prediction):
            continue
        if kind == "bind":
            return None
        if kind == "write" and name == target:
            written = True
        elif kind == "loss" and written and {target, prediction} <= {a.id for a in node.args if isinstance(a, ast.Name)}:
            return node
    return None


def aliases_written(ctx: ModuleContext) -> frozenset[ast.Assign]:
    """The module's `a = b` bindings of one name to another whose `a` has an item written somewhere in the module
    (most `a = b` never do, and their scope need not be read); asked once per module, then per assignment."""
    def compute() -> frozenset[ast.Assign]:
        written = _written_names(ctx)
        if not written:
            return frozenset()
        return frozenset(a for a in ctx.by_type.get(ast.Assign, ()) if len(a.targets) == 1
                         and type(a.value) is ast.Name and type(a.targets[0]) is ast.Name and a.targets[0].id in written)
    return ctx.memo(("aliased_target", "aliases"), compute)


def _written_names(ctx: ModuleContext) -> frozenset[str]:
    """The names the module writes an item of (`t[i] = v`) or calls an in-place method on (`t.scatter_(...)`)."""
    written = {sub.value.id for sub in ctx.by_type.get(ast.Subscript, ())
               if isinstance(sub.ctx, ast.Store) and isinstance(sub.value, ast.Name)}
    written.update(call.func.value.id for call in ctx.by_type.get(ast.Call, ()) if _in_place(call))
    return frozenset(written)


def _in_place(call: ast.Call) -> bool:
    """`t.scatter_(...)`, `t.index_put_(...)`: an in-place method that writes a plain name's values."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr.endswith("_") and not func.attr.startswith("_") \
        and func.attr not in NOT_WRITES and isinstance(func.value, ast.Name)


def _events(scope: ast.AST, ctx: ModuleContext) -> list[tuple[int, str, str, ast.AST]]:
    """The scope's bindings of plain names, in-place writes into a name's items, and the loss calls handed
    two plain names (each loss call once per name), in source order; nested functions and classes not entered."""
    return ctx.memo(("aliased_target", scope), lambda: sorted(_collect(scope, ctx), key=lambda e: (e[0], e[1])))


def _collect(scope: ast.AST, ctx: ModuleContext):
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.lineno, "bind", node.id, node
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
            yield node.lineno, "write", node.value.id, node
        elif isinstance(node, ast.Call):
            if _in_place(node):
                yield node.lineno, "write", node.func.value.id, node
            names = [a.id for a in node.args if isinstance(a, ast.Name)]
            if len(names) >= 2 and is_loss_call(node, ctx):
                for name in set(names):
                    yield node.lineno, "loss", name, node
