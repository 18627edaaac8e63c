"""Parameters that are gathered for training but never reach an optimiser.

Two shapes: a param group (`group = {"params": [...], "lr": ...}`) built and never handed on (the
`groups.append(group)` forgotten for one of several groups); and a module whose parameters the file
gathers together with the model's (`params = list(model.parameters()) + list(criterion.parameters())`,
a loss with trainable weights) while every optimiser is built on the model alone. Modules the file
freezes (`requires_grad_(False)`, `.eval()`, `p.requires_grad = False` over their parameters) are left out.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_params import (
    ITERATORS,
    covered,
    dotted,
    is_optimizer_name,
    params_argument,
    within,
)


def unused_groups(optimizer: ast.Call, ctx: ModuleContext) -> list[tuple[str, int]]:
    """(name, line) of each param group built in the optimiser's scope before it and never used whole
    afterwards (only filled, `group["params"].append(p)`), when the optimiser takes a collection built there."""
    params = params_argument(optimizer)
    if not isinstance(params, ast.Name):
        return []
    scope = ctx.scope_of(optimizer)
    table = ctx.bindings.get(scope, {})
    if params.id not in table:
        return []  # a parameter list handed in: its groups are built elsewhere
    names = ctx.in_scope(scope, (ast.Name,))
    found = []
    for name, values in table.items():
        bound = [v for v in values if isinstance(v, ast.Dict)]
        for value in bound:
            if value.lineno >= optimizer.lineno or exclusive(value, optimizer, ctx):
                continue  # built after it, or in another arm of an if/elif chain than the optimiser
            end = min((v.lineno for v in values if v.lineno > value.lineno and not exclusive(v, value, ctx)),
                      default=10**9)
            uses = [n for n in names if n.id == name and isinstance(n.ctx, ast.Load) and value.lineno < n.lineno < end]
            whole = [n for n in uses if not _filled(n, ctx)]
            if not whole and _is_group(value, uses, ctx):
                found.append((name, value.lineno))
    return found


def exclusive(a: ast.AST, b: ast.AST, ctx: ModuleContext) -> bool:
    """`a` and `b` sit in different arms of one `if` (an `elif` chain included): never both run."""
    arms_b = {}
    child = b
    for ancestor in ctx.ancestors(b):
        if isinstance(ancestor, ast.If):
            arms_b[ancestor] = child in ancestor.body
        child = ancestor
    child = a
    for ancestor in ctx.ancestors(a):
        if ancestor in arms_b:
            return arms_b[ancestor] != (child in ancestor.body)
        child = ancestor
    return False


def _filled(name: ast.Name, ctx: ModuleContext) -> bool:
    """`group["params"]...`, `group.update(...)`: the group is written to, not handed on."""
    parent = ctx.parent(name)
    return isinstance(parent, ast.Subscript | ast.Attribute) and parent.value is name


def _is_group(value: ast.Dict, uses: list[ast.Name], ctx: ModuleContext) -> bool:
    """A dict with a "params" key, or one whose "params" key is set later."""
    def params_key(key: ast.AST | None) -> bool:
        return isinstance(key, ast.Constant) and key.value == "params"

    if any(params_key(k) for k in value.keys):
        return True
    return any(isinstance(ctx.parent(n), ast.Subscript) and params_key(ctx.parent(n).slice) for n in uses)


def left_out_modules(optimizer: ast.Call, sources: list[tuple[str, bool]], ctx: ModuleContext) -> list[tuple[str, int]]:
    """(module, line) for modules gathered with this optimiser's parameters (in its scope or at module
    level) that no optimiser built in this file holds, and that the file does not freeze."""
    held = held_nearby(optimizer, ctx)
    if held is None:
        return []  # an optimiser next to this one whose parameters cannot be read may hold them
    near = (ctx.scope_of(optimizer), ctx.tree)
    found = []
    for assign, gathered in _gathered(ctx):
        if ctx.scope_of(assign) not in near:
            continue
        if not any(within(s, g) for s, _ in sources for g, _ in gathered):
            continue  # a collection of other modules
        line = assign.lineno
        for path, _ in gathered:
            if not any(within(path, h) for h in held) and not frozen(path, ctx) and path not in dict(found):
                found.append((path, line))
    return found


def held_nearby(optimizer: ast.Call, ctx: ModuleContext) -> set[str] | None:
    """The modules held by the optimisers built in the optimiser's scope or at module level (where names
    mean the same things); None when one of them cannot be read."""
    near = (ctx.scope_of(optimizer), ctx.tree)
    built = [sources for call, sources in _optimisers(ctx) if ctx.scope_of(call) in near]
    if any(sources is None for sources in built):
        return None
    return {path for sources in built for path, _ in sources}


def _gathered(ctx: ModuleContext) -> list[tuple[ast.Assign, list[tuple[str, bool]]]]:
    """Assignments that gather the parameters of two or more modules into one collection."""
    def collect() -> list[tuple[ast.Assign, list[tuple[str, bool]]]]:
        found = []
        for assign in ctx.by_type.get(ast.Assign, ()):
            value = assign.value
            if not isinstance(value, ast.BinOp | ast.List | ast.Tuple | ast.Call) or is_optimizer_name(
                    ctx.call_name(value)):
                continue
            if not any(isinstance(n, ast.Call) and ctx.method_name(n) in ITERATORS for n in ast.walk(value)):
                continue
            sources = covered(value, ctx)
            if sources and len({p for p, _ in sources}) >= 2:
                found.append((assign, sources))
        return found

    return ctx.memo(("optim_groups.gathered",), collect)


def _optimisers(ctx: ModuleContext) -> list[tuple[ast.Call, list[tuple[str, bool]] | None]]:
    """Every optimiser construction in the file, with the modules it holds (None: cannot be read)."""
    def collect() -> list[tuple[ast.Call, list[tuple[str, bool]] | None]]:
        found = []
        for call in ctx.by_type.get(ast.Call, ()):
            if is_optimizer_name(ctx.call_name(call)):
                params = params_argument(call)
                found.append((call, covered(params, ctx) if params is not None else None))
        return found

    return ctx.memo(("optim_groups.optimisers",), collect)


def frozen(path: str, ctx: ModuleContext) -> bool:
    """The file freezes the module or puts it in eval mode: leaving it out of the optimiser is deliberate."""
    for call in ctx.by_type.get(ast.Call, ()):
        method = ctx.method_name(call)
        receiver = dotted(call.func.value) if method else None
        if receiver is None or not within(path, receiver) and not within(receiver, path):
            continue
        if method == "eval" or method == "requires_grad_" and any(
                isinstance(a, ast.Constant) and a.value is False for a in [*call.args, *(k.value for k in call.keywords)]):
            return True
        if method in ITERATORS and _freezes_loop(call, ctx):
            return True
    return False


def _freezes_loop(call: ast.Call, ctx: ModuleContext) -> bool:
    """`for p in m.parameters(): p.requires_grad = False`."""
    loop = ctx.parent(call)
    if not isinstance(loop, ast.For) or loop.iter is not call:
        return False
    return any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is False
               and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in n.targets)
               for n in ast.walk(loop))
