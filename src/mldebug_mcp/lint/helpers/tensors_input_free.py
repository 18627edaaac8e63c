"""Whether a value in a forward is computed from the module's own attributes alone, none of forward's inputs (MLD041).

`W = self.conv.weight.squeeze()`, `torch.logdet(W.unsqueeze(0).float()).squeeze()` (WaveGlow's invertible 1x1
conv): a weight matrix and its log-determinant have no batch axis, so a dim-less squeeze of them cannot drop one.
"""

from __future__ import annotations

import ast
import builtins

from ..context import ModuleContext

BUILTINS = frozenset(dir(builtins))


def from_attributes_only(expr: ast.expr, func: ast.FunctionDef, ctx: ModuleContext, budget: int = 40) -> bool:
    """Every name `expr` reads is an attribute of `self` set in `__init__` only (a layer, a weight), an import, or
    a local of `func` whose every value is itself computed from those; and such an attribute is read somewhere on
    the way. A parameter, a loop variable, a name of unknown origin (a tuple unpacked from a call) or an attribute
    set in another method (`self.scores = ...` in forward) counts as input."""
    local = ctx.bindings.get(func, {})
    module = ctx.bindings.get(ctx.tree, {})
    unknown = ctx.memo(("names-bound-otherwise", func), lambda: _bound_otherwise(func, ctx))
    cls = ctx.enclosing_class(func)
    arguments = func.args
    params = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs} - {"self"}
    pending, seen, reads_self = [expr], set(), False
    while pending:
        budget -= 1
        if budget < 0:
            return False
        for node in ast.walk(pending.pop()):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                if not _built_in_init(node.attr, cls, ctx):
                    return False  # `self.scores` set in forward from the batch
                reads_self = True
            if not isinstance(node, ast.Name) or node.id in seen or node.id == "self":
                continue
            seen.add(node.id)
            if node.id in params or node.id in unknown or node.id in local and not local[node.id]:
                return False
            if node.id in local:
                pending.extend(local[node.id])
            elif node.id not in ctx.aliases and node.id not in module and node.id not in BUILTINS:
                return False
    return reads_self


def _bound_otherwise(func: ast.FunctionDef, ctx: ModuleContext) -> frozenset[str]:
    """Names `func` binds other than by a plain `name = value`: loop and `with` targets, unpacked tuples, `+=`."""
    names = set()
    for node in ctx.within(ast.Name, func):
        if isinstance(node.ctx, ast.Store) and not isinstance(ctx.parent(node), ast.Assign | ast.AnnAssign):
            names.add(node.id)
    return frozenset(names)


def _built_in_init(attribute: str, cls: ast.ClassDef | None, ctx: ModuleContext) -> bool:
    """`self.conv`: assigned in the class's `__init__`, and neither stored nor changed by another method
    (`self.ids, _ = sample()`, `self.g.edata["a"] = ...`, `self.memory.index_copy_(...)` in forward count)."""
    if cls is None or not ctx.class_attrs.get(cls.name, {}).get(attribute):
        return False
    return attribute not in ctx.memo(("attributes-changed-outside-init", cls), lambda: _changed_outside_init(cls, ctx))


# methods that change their receiver: torch's in-place ones end in "_"
CHANGING = {"update", "append", "extend", "insert", "apply_edges", "update_all"}


def _changed_outside_init(cls: ast.ClassDef, ctx: ModuleContext) -> frozenset[str]:
    """The attributes of self that a method other than `__init__` stores, stores into, or changes in place."""
    changed = set()
    for kind in (ast.Attribute, ast.Subscript):
        for node in ctx.within(kind, cls):
            if isinstance(node.ctx, ast.Store):
                target = node if kind is ast.Attribute else node.value
            elif kind is ast.Attribute and (node.attr.endswith("_") or node.attr in CHANGING) \
                    and isinstance(ctx.parent(node), ast.Call) and ctx.parent(node).func is node:
                target = node.value
            else:
                continue
            root = _self_attribute_root(target)
            function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if root is not None and getattr(function, "name", "") != "__init__":
                changed.add(root)
    return frozenset(changed)


def _self_attribute_root(expr: ast.expr) -> str | None:
    """`conv` for `self.conv`, `self.conv.weight`, `self.g.edata["a"]`."""
    while isinstance(expr, ast.Attribute | ast.Subscript | ast.Call):
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return expr.attr
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return None
