"""Whether a value kept in a running total is itself (a term of) what a backward() ran on (MLD032).

This is evidence of a live loss tensor from what the code does with the value, whatever it is called:
`l.backward()`, `scaler.scale(l).backward()`, `accelerator.backward(l)`, `self.manual_backward(l)` on
the same name in the region; a term of such a sum (`t = a + b; t.backward()` keeps `a` and `b` live);
an element a local helper returns beside the backwarded one when the helper builds that one from it
(`t, _, a, b = self.completion(x)` with `return (a + b, ..., a, b)`); an entry of a container whose
entries a backwarded value is built from (`ls[0].backward()` then `ema = k * ls[1] + ...`; the values of
`parts.items()` after `sum(parts.values()).backward()`); and the result of a local function that returns a
running total of what it backwarded (`returns_running_loss`).
"""

from __future__ import annotations

import ast

from .accum_losses import (
    KEEPS_GRAPH,
    detached,
    is_loss_value,
    iterated_container,
    local_callee,
)
from .graph import callee, latest_value, module_index

_BACKWARD_TAKES_LOSS = {"manual_backward"}  # a method whose argument (not its receiver) is the loss
ENTRIES = "[]"  # marks a container whose entries a backwarded sum is built from


def _subjects(call: ast.Call, ctx) -> list[ast.expr]:
    """What a backward() call runs on: its receiver unwrapped from `scaler.scale(...)` and graph-keeping
    methods, or the argument of `accelerator.backward(loss)` / `self.manual_backward(loss)`."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if ctx.method_name(call) in _BACKWARD_TAKES_LOSS or (
            call.args and isinstance(receiver, ast.Name) and _engine(receiver, ctx)):
        return [call.args[0]] if call.args else []
    while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
        if receiver.func.attr == "scale" and len(receiver.args) == 1:
            receiver = receiver.args[0]
        elif receiver.func.attr in KEEPS_GRAPH and ctx.call_name(receiver) is None:
            receiver = receiver.func.value
        else:
            break
    return [receiver] if receiver is not None else []


def _engine(name: ast.Name, ctx) -> bool:
    """`accelerator = Accelerator(...)` (an object built from a class) or an object handed in as a parameter:
    its backward(x) takes the loss (a tensor's backward(g) is called on a value computed here)."""
    value = latest_value(name, ctx)
    if value is None:
        return _parameter_line(name, ctx) is not None or _free_in_script(name, ctx)
    return isinstance(value, ast.Call) and callee(value.func)[:1].isupper()


def _free_in_script(name: ast.Name, ctx) -> bool:
    """A script's name nothing in the module binds, defines or imports (set up by a notebook's earlier cell, or
    `from setup import *`): at module level it is what a parameter is to a function, an object handed in."""
    if ctx.scope_of(name) is not ctx.tree or name.id in ctx.aliases or name.id in ctx.functions \
            or name.id in ctx.classes:
        return False
    return not any(n.id == name.id and not isinstance(n.ctx, ast.Load) for n in ctx.by_type.get(ast.Name, ()))


def _terms(expr: ast.expr | None, ctx, depth: int = 3, before: int = 0) -> set[str]:
    """The names a sum is built from (`a + b + c * 0.1`, through names assigned, and `+=` run, before line
    `before`: the backward() call's)."""
    if expr is None or depth <= 0:
        return set()
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Sub):
        return _terms(expr.left, ctx, depth, before) | _terms(expr.right, ctx, depth, before)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult | ast.Div):
        # a term scaled by a constant weight
        sides = [s for s in (expr.left, expr.right) if not isinstance(s, ast.Constant)]
        return _terms(sides[0], ctx, depth, before) if len(sides) == 1 else set()
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in KEEPS_GRAPH \
            and ctx.call_name(expr) is None:
        # `aux.sum()`: a reduction of a term is still that term's graph
        return _terms(expr.func.value, ctx, depth, before)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
        return {expr.value.id + ENTRIES}  # `ls[0]`: an entry of the container `ls`
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "sum" and expr.args:
        summed = expr.args[0]  # `sum(parts.values())`, `sum(parts)`: every entry of `parts`
        if isinstance(summed, ast.Call) and isinstance(summed.func, ast.Attribute) and summed.func.attr == "values":
            summed = summed.func.value
        return {summed.id + ENTRIES} if isinstance(summed, ast.Name) else set()
    if isinstance(expr, ast.Name):
        found = {expr.id}
        value = latest_value(expr, ctx)
        if isinstance(value, ast.BinOp | ast.Call | ast.Subscript):
            found |= _terms(value, ctx, depth - 1, before)
        for aug in module_index(ctx)["augmented"].get((ctx.scope_of(expr), expr.id), ()):
            if aug.lineno < (before or expr.lineno):  # a `+=` after the backward is not part of what it ran on
                found |= _terms(aug.value, ctx, depth - 1, before)
        return found
    return set()


def _backwarded(region: ast.AST, ctx) -> list[tuple[ast.expr, int]]:
    """What each backward() in the region runs on, with the line of that call (once per region)."""
    def compute() -> list[tuple[ast.expr, int]]:
        scope = region if isinstance(region, ast.FunctionDef | ast.AsyncFunctionDef) else ctx.scope_of(region)
        calls = module_index(ctx)["backward"].get(scope, ())
        inside = [c for c in calls if region is scope or region in set(ctx.ancestors(c))]
        return [(s, c.lineno) for c in inside for s in _subjects(c, ctx)]
    return ctx.memo(("accum-backwarded", region), compute)


def _subject_terms(subject: ast.expr, at: int, ctx) -> set[str]:
    """`_terms` of what the backward() on line `at` runs on, once per subject (asked for every operand)."""
    return ctx.memo(("accum-backwarded-terms", subject, at), lambda: _terms(subject, ctx, before=at))


def backwarded_value(operand: ast.expr, region: ast.AST, ctx) -> bool:
    """`operand` (a name, or an entry `c[k]`) is, or is a term of, what a backward() in `region` runs on."""
    subjects = _backwarded(region, ctx)
    if not subjects:
        return False
    if isinstance(operand, ast.Subscript):
        # `c[0].backward()`, `(c["a"] + c["b"]).backward()` in the region: the entries of `c` are losses
        base = operand.value
        return isinstance(base, ast.Name) and any(base.id + ENTRIES in _subject_terms(s, at, ctx) for s, at in subjects)
    if not isinstance(operand, ast.Name):
        return False
    container = iterated_container(operand, ctx)
    if isinstance(container, ast.Name) and any(container.id + ENTRIES in _subject_terms(s, at, ctx)
                                               for s, at in subjects):
        return True  # `for k, v in parts.items()` after `sum(parts.values()).backward()`
    value = latest_value(operand, ctx)
    if isinstance(value, ast.Constant):
        return False
    # the value the accumulation reads is the one bound before the backward (a parameter, or assigned earlier)
    bound = value.lineno if value is not None else _parameter_line(operand, ctx)
    if bound is not None and any(bound <= at and operand.id in _subject_terms(s, at, ctx) for s, at in subjects):
        return True
    names = {s.id for s, _ in subjects if isinstance(s, ast.Name)}
    return _built_into_backwarded(operand, value, names, ctx)


def _parameter_line(name: ast.Name, ctx) -> int | None:
    func = ctx.enclosing(name, (ast.FunctionDef, ast.AsyncFunctionDef))
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs} if func else set()
    return func.lineno if name.id in params else None


def _built_into_backwarded(operand: ast.Name, value: ast.AST | None, backwarded: set[str], ctx) -> bool:
    """`t, _, a, b = self.completion(x)` with `t` backwarded and the helper returning `(a + b, ..., a, b)`."""
    stmt = ctx.parent(value) if value is not None else None
    if not (isinstance(value, ast.Call) and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Tuple)):
        return False
    func = local_callee(value, ctx)
    if func is None:
        return False
    names = [e.id if isinstance(e, ast.Name) else None for e in stmt.targets[0].elts]
    if operand.id not in names:
        return False
    mine = names.index(operand.id)
    live = [i for i, n in enumerate(names) if n in backwarded and i != mine]
    for ret in ctx.in_scope(func, (ast.Return,)):
        if not (isinstance(ret.value, ast.Tuple) and len(ret.value.elts) == len(names)):
            continue
        own = ret.value.elts[mine]
        if isinstance(own, ast.Name) and any(own.id in _terms(ret.value.elts[i], ctx) for i in live):
            return True
        # `return (a, F.l1_loss(y, t))` or a name holding that: a loss computed beside the backwarded one
        held = latest_value(own, ctx) if isinstance(own, ast.Name) else own
        if live and held is not None and is_loss_value(held, ctx) and not detached(held, ctx):
            return True
    return False


def returns_running_loss(operand: ast.expr, ctx) -> bool:
    """`v = epoch(...)` where the local function `epoch` returns a running total (`t = t + l`, `t += l`, then
    `return t / len(loader)`) of a value it ran backward() on: every step's graph comes back with it."""
    value = latest_value(operand, ctx) if isinstance(operand, ast.Name) else operand
    func = local_callee(value, ctx) if isinstance(value, ast.Call) else None
    if func is None:
        return False
    for ret in ctx.in_scope(func, (ast.Return,)):
        root = ret.value
        while isinstance(root, ast.BinOp) and isinstance(root.op, ast.Div | ast.Mult):
            root = root.left  # `total / len(loader)`
        if not isinstance(root, ast.Name):
            continue
        added = [a.value for a in module_index(ctx)["augmented"].get((func, root.id), ())]
        added += [a.value.right for a in ctx.in_scope(func, (ast.Assign,)) if len(a.targets) == 1
                  and isinstance(a.targets[0], ast.Name) and a.targets[0].id == root.id
                  and isinstance(a.value, ast.BinOp) and isinstance(a.value.op, ast.Add)
                  and isinstance(a.value.left, ast.Name) and a.value.left.id == root.id]
        if any(isinstance(x, ast.Name) and backwarded_value(x, func, ctx) for x in added):
            return True
    return False
