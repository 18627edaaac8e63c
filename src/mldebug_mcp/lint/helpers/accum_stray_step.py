"""A step of the accumulated optimiser outside its accumulation test, on every pass.

`loss.backward(); if i % k == 0: opt.step(); opt.zero_grad()` and then, after the `if` (a leftover from
before accumulation was added, or a copy made while moving the clip), `opt.step()` again: the optimiser
now steps on every micro-batch with the partial sum of gradients, so the accumulation never happens and
each window's k-th step applies a gradient already applied. A second optimiser stepping every pass is
alternating updates (a critic and a generator), not this.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .accum_step_condition import modulo_test
from .loops import LOOPS, is_any_backward
from .optim_steps import expanded_calls, unconditional_in
from .optim_values import optimizer_step
from .optim_zeroing import keys, stepped_optimizer


def stray_step(node: ast.If, ctx: ModuleContext) -> ast.Call | None:
    """The call of the loop body that steps, on every pass, the optimiser `node` steps every k passes."""
    test = modulo_test(node.test)
    if test is None or isinstance(test.divisor, ast.Constant) and test.divisor.value in (0, 1):
        return None
    loop = ctx.enclosing(node, LOOPS)
    if loop is None or ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, *LOOPS)) is not loop:
        return None
    guarded = [c for c, _ in expanded_calls(node.body, ctx) if optimizer_step(c, ctx)]
    if not guarded or node.orelse and any(optimizer_step(c, ctx) for c, _ in expanded_calls(node.orelse, ctx)):
        return None
    names = set()
    for call in guarded:
        optimizer = stepped_optimizer(call)
        names |= keys(optimizer, ctx) if optimizer is not None else set()
    inside = set(ast.walk(node))
    calls = list(expanded_calls(loop.body, ctx))
    if not any(is_any_backward(c) and via not in inside and unconditional_in(via, loop, ctx) for c, via in calls):
        return None  # no backward on every pass: not accumulating
    for call, via in calls:
        if via in inside or not optimizer_step(call, ctx) or not unconditional_in(via, loop, ctx):
            continue
        optimizer = stepped_optimizer(call)
        if optimizer is not None and keys(optimizer, ctx) & names:
            return via
    return None
