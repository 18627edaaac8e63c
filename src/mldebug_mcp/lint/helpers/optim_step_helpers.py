"""A step helper of the project (`def train_step(model, batch, optimizer, scaler): ... scaler.scale(loss).backward();
scaler.step(optimizer)`) called by a loop of another file. Whether the gradients are cleared depends on both files:
the loop tells, as project facts, which functions it hands an optimiser to on each iteration and whether it clears
the gradients itself; the helper's file asks."""

from __future__ import annotations

import ast
import os

from ..context import ModuleContext
from .graph import callee
from .loader_facts import scoped, told_in_scope
from .loops import (
    LOOPS,
    is_backward,
    is_optimizer_step,
    is_zero_grad,
    sets_grad_to_none,
)
from .optim_steps import FUNCTIONS, local_callee

CALLED_ZEROED = "step-call-zeroed"  # project fact (scoped): `<function>` is called in a loop that clears gradients
CALLED_BARE = "step-call-bare"  # ... in a loop that clears none: value "file:line" of that call
OPTIMIZER_NAMES = ("optim", "opt")


def _optimizer_like(expr: ast.AST, ctx: ModuleContext) -> bool:
    built = ctx.constructed(expr) or ""
    if built.startswith("torch.optim.") and "lr_scheduler" not in built:
        return True
    name = callee(expr).lower()
    return name.startswith(OPTIMIZER_NAMES) and "sched" not in name


def caller_facts(ctx: ModuleContext) -> dict[str, str]:
    """For each function of another file this file calls in a loop, handing it an optimiser: whether that loop
    clears the gradients."""
    if not ctx.memo(("step-helpers", "text"), lambda: "optim" in ctx.source):
        return {}
    found: dict[str, str] = {}
    for call in ctx.by_type.get(ast.Call, ()):
        func = call.func
        if not (isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id not in ("self", "cls")) or local_callee(call, ctx) is not None:
            continue
        if not any(_optimizer_like(a, ctx) for a in [*call.args, *(k.value for k in call.keywords)]):
            continue
        loop = next((a for a in ctx.ancestors(call) if isinstance(a, LOOPS + FUNCTIONS)), None)
        if not isinstance(loop, LOOPS):
            continue
        key = CALLED_ZEROED if _clears(loop, ctx) else CALLED_BARE
        found.update(scoped(f"{key}:{callee(func)}", f"{os.path.basename(ctx.path)}:{call.lineno}", ctx))
    return found


def _clears(loop: ast.AST, ctx: ModuleContext) -> bool:
    """The loop clears gradients: a zero_grad() in it, or in a function of this file it calls."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Call):
            if is_zero_grad(node):
                return True
            helper = local_callee(node, ctx)
            if helper is not None and any(isinstance(c, ast.Call) and is_zero_grad(c) for c in ast.walk(helper)):
                return True
    return sets_grad_to_none(loop.body)


def unzeroed_step_helper(function: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, str, str] | None:
    """A top-level function that backwards and steps the optimiser it is handed, once (no loop of its own), never
    clears the gradients, and is called by a loop of another file that clears none either: (the first statement of
    its body, where zero_grad() goes; the optimiser's name; where the loop calls it)."""
    if not isinstance(ctx.parent(function), ast.Module):
        return None
    params = {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    stepped = None
    backwards = False
    for node in ast.walk(function):
        if isinstance(node, LOOPS) or isinstance(node, ast.Call) and is_zero_grad(node):
            return None
        if isinstance(node, ast.Call):
            backwards = backwards or is_backward(node)
            if is_optimizer_step(node, ctx):
                target = node.args[0] if node.args else node.func.value
                if isinstance(target, ast.Name) and target.id in params:
                    stepped = target.id
    if stepped is None or not backwards or sets_grad_to_none(function.body):
        return None
    where = told_in_scope(ctx, f"{CALLED_BARE}:{function.name}")
    if where is None or told_in_scope(ctx, f"{CALLED_ZEROED}:{function.name}") is not None:
        return None
    body = function.body
    first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        else body[0]
    return first, stepped, where
