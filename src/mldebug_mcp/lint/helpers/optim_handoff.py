"""Ways an optimiser of several misses its zero_grad(): handed to a training function in place of another
(`train(..., g_optimizer, g_optimizer)` where `train` takes `g_optimizer, d_optimizer`: the first is zeroed
and stepped twice, the second never), or zeroed only under a condition while it steps every iteration."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import words
from .optim_params import dotted
from .optim_sched_order import OPTIMIZER_WORDS
from .optim_steps import local_callee, unconditional_in
from .optim_zeroing import keys


def optimizer_passed_twice(call: ast.Call, ctx: ModuleContext) -> tuple[ast.AST, str, str] | None:
    """(the second argument, the parameter it fills, the parameter the same optimiser filled first)."""
    bound = _bound(call, ctx)
    seen: dict[str, str] = {}
    for parameter, argument in bound:
        if not words(parameter) & OPTIMIZER_WORDS:
            continue
        name = dotted(argument)
        if name is None:
            continue
        if name in seen and seen[name] != parameter:
            return argument, parameter, seen[name]
        seen.setdefault(name, parameter)
    return None


def _bound(call: ast.Call, ctx: ModuleContext) -> list[tuple[str, ast.AST]]:
    pairs = [(k.arg, k.value) for k in call.keywords if k.arg]
    if len(call.args) < 2:
        return pairs
    function = local_callee(call, ctx)
    if function is None:
        return pairs
    parameters = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    if parameters and parameters[0] in {"self", "cls"} and isinstance(call.func, ast.Attribute):
        parameters = parameters[1:]
    return list(zip(parameters, call.args, strict=False)) + pairs


def sometimes(zero: ast.Call, step: ast.Call, block: ast.AST, ctx: ModuleContext) -> bool:
    """The zero_grad() runs only under an `if` of this iteration (with no zero_grad of the same receiver on
    the other side) while the step runs every iteration."""
    if not any(a is block for a in ctx.ancestors(zero)) or unconditional_in(zero, block, ctx):
        return False
    if not unconditional_in(step, block, ctx):
        return False
    branch = next((a for a in ctx.ancestors(zero) if isinstance(a, ast.If)), None)
    if branch is None or not any(a is block for a in ctx.ancestors(branch)):
        return False
    inside_body = any(a is branch.body[0] or a in branch.body for a in (zero, *ctx.ancestors(zero)))
    other = branch.orelse if inside_body else branch.body
    names = keys(zero.func.value, ctx)
    return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "zero_grad"
                   and keys(n.func.value, ctx) & names for stmt in other for n in ast.walk(stmt))
