"""Where values are put, other than by `name = value` (context.py binds those): tuple targets, attributes of
an object handed in as a parameter, slots of a buffer, modules added to a Sequential, lists changed in place.
Each table is built once per module, on first use, from the nodes the context already grouped by type."""

from __future__ import annotations

import ast

from .parameters import parameter_of
from .traced import position
from .vocabulary import LIST_MUTATIONS, SEQUENTIAL


def unpacked(ctx, scope: ast.AST) -> dict[str, list[tuple[ast.expr, int]]]:
    """`a, b = f(x)` in `scope`: name -> (value, position) for tuple targets whose value is not a literal."""
    def build() -> dict:
        table: dict[ast.AST, dict[str, list]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            if isinstance(node.value, ast.Tuple | ast.List):
                continue  # context.py binds literal tuples element by element
            for target in node.targets:
                if isinstance(target, ast.Tuple | ast.List):
                    names = table.setdefault(ctx.scope_of(node), {})
                    for index, elt in enumerate(target.elts):
                        if isinstance(elt, ast.Starred):
                            break
                        if isinstance(elt, ast.Name):
                            names.setdefault(elt.id, []).append((node.value, index))
        return table

    return ctx.memo(("kinds-unpacked",), build).get(scope, {})


def handed_attribute(ctx, expr: ast.Attribute) -> list[ast.expr]:
    """`obj.head = Head()` in one method and `obj.head(x)` in another, `obj` a parameter of both (a callback
    given the model it trains): the values assigned to that attribute of a parameter so named in this class."""
    base = expr.value
    if not isinstance(base, ast.Name) or base.id == "self" or parameter_of(base, ctx) is None:
        return []

    def build() -> dict:
        table: dict[tuple, list[ast.expr]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id != "self" and parameter_of(target.value, ctx) is not None):
                    key = (ctx.enclosing_class(node), target.value.id, target.attr)
                    table.setdefault(key, []).append(node.value)
        return table

    return ctx.memo(("kinds-handed",), build).get((ctx.enclosing_class(expr), base.id, expr.attr), [])


def filled(ctx, scope: ast.AST, name: str) -> list[ast.expr]:
    """The values stored into slots of `name` in `scope`: `outputs[t] = step` in a decoding loop."""
    def build() -> dict:
        table: dict[tuple, list[ast.expr]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    table.setdefault((ctx.scope_of(node), target.value.id), []).append(node.value)
        return table

    return ctx.memo(("kinds-filled",), build).get((scope, name), [])


def added_modules(ctx, sequential: ast.Call) -> list[ast.expr]:
    """The modules `seq.add_module(name, module)` appends to the Sequential `sequential` builds, in order."""
    def build() -> dict:
        table: dict[ast.Call, list[ast.expr]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            callee = call.func
            if not (isinstance(callee, ast.Attribute) and callee.attr == "add_module" and len(call.args) == 2):
                continue
            built = ctx.resolve(callee.value)
            if isinstance(built, ast.Call) and ctx.call_name(built) == SEQUENTIAL:
                table.setdefault(built, []).append(call.args[1])
        for modules in table.values():
            modules.sort(key=position)  # the index lists calls in walk order, not source order
        return table

    if not ctx.has_text("add_module"):
        return []
    return ctx.memo(("kinds-added",), build).get(sequential, [])


def changed_in_place(ctx, name: ast.Name) -> bool:
    """Whether the list `name` holds is appended to, extended or otherwise changed in its scope."""
    def build() -> set:
        changed = set()
        for call in ctx.by_type.get(ast.Call, ()):
            callee = call.func
            if isinstance(callee, ast.Attribute) and callee.attr in LIST_MUTATIONS and isinstance(callee.value, ast.Name):
                changed.add((ctx.scope_of(call), callee.value.id))
        for node in ctx.by_type.get(ast.AugAssign, ()):
            if isinstance(node.target, ast.Name):
                changed.add((ctx.scope_of(node), node.target.id))
        return changed

    return (ctx.scope_of(name), name.id) in ctx.memo(("kinds-changed-lists",), build)


def appended(ctx, scope: ast.AST, name: str) -> list[ast.expr]:
    """The values `name.append(value)` puts into the list `name` holds in `scope` (outputs of a decoding loop)."""
    def build() -> dict:
        table: dict[tuple, list[ast.expr]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            callee = call.func
            if (isinstance(callee, ast.Attribute) and callee.attr == "append" and isinstance(callee.value, ast.Name)
                    and len(call.args) == 1 and not call.keywords):
                table.setdefault((ctx.scope_of(call), callee.value.id), []).append(call.args[0])
        return table

    if not ctx.has_text(".append("):
        return []
    return ctx.memo(("kinds-appended",), build).get((scope, name), [])
