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
from .optim_steps import FUNCTIONS, call_sites, local_callee

CALLED_ZEROED = "step-call-zeroed"  # project fact (scoped): `<function>` is called in a loop that clears gradients
CALLED_BARE = "step-call-bare"  # ... in a loop that clears none: value "file:line" of that call
OPTIMIZER_NAMES = ("optim", "opt")
NOT_OPTIMIZERS = ("option",)  # `Optional`, `options`: type hints and settings, in nearly every file


def _handed_optimizers(ctx: ModuleContext) -> list[ast.Call]:
    """The calls that hand an optimiser over: an argument named like one (`optimizer`, `self.opt`), or a name this
    file builds with torch.optim. Found from the names, not by reading every call."""
    built = {t.id for a in ctx.by_type.get(ast.Assign, ()) if isinstance(a.value, ast.Call)
             and (ctx.call_name(a.value) or "").startswith("torch.optim.") and "lr_scheduler" not in (
                 ctx.call_name(a.value) or "") for t in a.targets if isinstance(t, ast.Name)}
    wanted = built | {w for w in ctx.code_words.split("\n") if w.lower().startswith(OPTIMIZER_NAMES)
                      and not w.lower().startswith(NOT_OPTIMIZERS) and "sched" not in w.lower()}
    found: dict[int, ast.Call] = {}
    if not wanted:
        return []
    for node in [*ctx.by_type.get(ast.Name, ()), *ctx.by_type.get(ast.Attribute, ())]:
        if (node.id if type(node) is ast.Name else node.attr) not in wanted:
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.keyword):
            parent = ctx.parent(parent)
        if isinstance(parent, ast.Call) and parent.func is not node and not (
                isinstance(parent.func, ast.Attribute) and parent.func.value is node):
            found[id(parent)] = parent
    return list(found.values())


def caller_facts(ctx: ModuleContext) -> dict[str, str]:
    """For each function of another file this file calls in a loop, handing it an optimiser: whether that loop
    clears the gradients."""
    if "opt" not in ctx.source:
        return {}  # a cheap first gate; _handed_optimizers reads the words
    found: dict[str, str] = {}
    for call in _handed_optimizers(ctx):
        func = call.func
        if not (isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id not in ("self", "cls")):
            continue
        loop = next((a for a in ctx.ancestors(call) if isinstance(a, LOOPS + FUNCTIONS)), None)
        if not isinstance(loop, LOOPS) or local_callee(call, ctx) is not None:
            continue
        key = CALLED_ZEROED if _clears(loop, ctx) else CALLED_BARE
        found.update(scoped(f"{key}:{callee(func)}", f"{os.path.basename(ctx.path)}:{call.lineno}", ctx))
    return found


def says_it_clears(call: ast.Call) -> bool:
    """A zero_grad(), or a call named for clearing, also a helper of another file (`clear_grads(opt)`,
    `zero_all(opts)`, `self.zero_all()`)."""
    named = callee(call.func).lower()
    return is_zero_grad(call) or "zero" in named or "clear" in named and "grad" in named


def _clears(loop: ast.AST, ctx: ModuleContext) -> bool:
    """The loop clears gradients: a zero_grad() in it, or in a function of this file it calls."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Call):
            if says_it_clears(node):
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
    if not any("opt" in p.lower() or "solver" in p.lower() for p in params):
        return None  # a handed optimiser is stepped by its name (is_optimizer_step)
    if call_sites(function, ctx):
        return None  # called in this file: MLD010 reads it inlined at its callers' loops
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
