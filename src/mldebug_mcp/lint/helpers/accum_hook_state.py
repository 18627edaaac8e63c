"""A training step hands its live losses to a hook, and the hook keeps them across iterations.

`self.call_hook("after_train_iter", batch_idx, losses)` (or `for cb in self.callbacks: cb.on_batch_end(self, loss)`)
right after `loss = sum(losses.values()); loss.backward()`, and a logger hook of another file that does
`self.history[name].append(value)` for each entry: every iteration's graph stays alive in the hook's state. The
step's file tells the run which hook gets a live loss and where among its arguments (`hook-loss:<method>` ->
'<position from the end>'); the hook's file finds the store.
"""

from __future__ import annotations

import ast

from .accum_losses import detached
from .loader_facts import scoped, told_in_scope
from .optim_steps import FUNCTIONS

HOOK_LOSS = "hook-loss"
HOOK_LOSS_ANY = "hook-loss-any"  # project fact (scoped): some training step of the run hands a hook its live losses


def _live_names(func: ast.AST, ctx) -> set[str]:
    """Names a backward() in `func` runs on, the names they were built from, and dicts a backwarded value is put in."""
    live = {c.func.value.id for c in ast.walk(func) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == "backward" and isinstance(c.func.value, ast.Name)}
    if not live:
        return live
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in live and not detached(node.value, ctx):
                live |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}  # `loss = sum(losses.values())`
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and isinstance(node.value, ast.Name) and node.value.id in live:
                live.add(target.value.id)  # `losses["loss"] = loss`
    return live


def hook_loss_facts(ctx) -> dict[str, str]:
    """For each hook a training step of this file hands a live loss to: its position among the arguments, from
    the end (a dispatcher may put the runner first)."""
    if not ctx.has_text("hook") and not ctx.has_text("callback"):
        return {}
    found: dict[str, str] = {}
    for func in ctx.backward_scopes:
        if not isinstance(func, FUNCTIONS):
            continue
        live = None
        for call in ast.walk(func):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or call.keywords:
                continue
            args = call.args
            if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str) \
                    and args[0].value.isidentifier():
                name, passed = args[0].value, args[1:]  # `self.call_hook("after_train_iter", i, losses)`
            elif isinstance(call.func.value, ast.Name) and call.func.value.id != "self":
                name, passed = call.func.attr, args  # `cb.on_batch_end(self, loss)` on a callback object
            else:
                continue
            live = _live_names(func, ctx) if live is None else live
            for index, arg in enumerate(passed):
                if isinstance(arg, ast.Name) and arg.id in live:
                    found.update(scoped(f"{HOOK_LOSS}:{name}", str(len(passed) - 1 - index), ctx))
                    found.update(scoped(HOOK_LOSS_ANY, "1", ctx))
    return found


def may_keep_handed_losses(ctx) -> bool:
    """The file defines classes and the run has a training step that hands a hook its live losses (cheap: asked
    of every file that mentions hooks or callbacks)."""
    return bool(ctx.classes) and ctx.project is not None and told_in_scope(ctx, HOOK_LOSS_ANY) is not None


def hook_keeps_loss(ctx) -> list[tuple[ast.stmt, str, str]]:
    """(the store, the value kept, the hook's name) for each method of this file that a training step of the run
    hands a live loss and that keeps it (or its entries) on self without turning it into a number."""
    if not may_keep_handed_losses(ctx):
        return []
    found = []
    for cls in ctx.classes.values():
        for method in cls.body:
            if not isinstance(method, FUNCTIONS):
                continue
            told = told_in_scope(ctx, f"{HOOK_LOSS}:{method.name}")
            params = [a.arg for a in method.args.posonlyargs + method.args.args]
            if not told or not told.isdigit() or int(told) >= len(params) - 1:
                continue
            param = params[len(params) - 1 - int(told)]
            store = _kept_on_self(method, param, ctx)
            if store is not None:
                found.append((store[0], store[1], method.name))
    return found


def _kept_on_self(method: ast.AST, param: str, ctx) -> tuple[ast.stmt, str] | None:
    """`self.history[k].append(v)` for `v` an entry of `param` (or `param` itself), `self.kept[k] = v`."""
    held = {param}
    for loop in ast.walk(method):  # `for name, value in outputs.items()`, `for v in outputs.values()`
        if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute) \
                and loop.iter.func.attr in ("items", "values") and isinstance(loop.iter.func.value, ast.Name) \
                and loop.iter.func.value.id == param:
            target = loop.target.elts[-1] if isinstance(loop.target, ast.Tuple) else loop.target
            if isinstance(target, ast.Name):
                held.add(target.id)

    def holds(expr: ast.AST) -> bool:
        while isinstance(expr, ast.Subscript):
            expr = expr.value
        return isinstance(expr, ast.Name) and expr.id in held

    for node in ast.walk(method):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                and node.value.func.attr in ("append", "extend") and node.value.args and _on_self(node.value.func.value):
            value = node.value.args[0]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and _on_self(node.targets[0].value):
            value = node.value
        else:
            continue
        if holds(value) and not detached(value, ctx):
            return node, ast.unparse(value)
    return None


def _on_self(expr: ast.AST) -> bool:
    while isinstance(expr, ast.Subscript | ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id == "self"
