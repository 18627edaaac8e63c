"""A zero_grad() that opens each accumulation window under a test no remainder of 1 can pass.

`if it % k == 1: opt.zero_grad()` ... `if it % k == 0: opt.step()` clears at the start of every window of
k micro-batches (with `it` counting from 1), but a remainder modulo k is always below k: with k == 1 (one
micro-batch per update, the usual default of such a setting) `it % k == 1` never holds, nothing clears the
gradients, and every step adds up all earlier ones. Any constant above 0 that k may not exceed is the same
slip; a test that also accepts k == 1 (`k == 1 or it % k == 1`) is the fix.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import (
    LOOPS,
    is_any_backward,
    is_zero_grad,
    sets_grad_to_none,
)
from .optim_steps import FUNCTIONS, expanded_calls
from .optim_values import optimizer_step


def _remainder_test(test: ast.expr) -> tuple[ast.expr, int] | None:
    """(k, c) for `x % k == c` (or `c == x % k`, or one conjunct of `and`) with c a constant above 0 that k,
    unless a constant larger than c, may not exceed."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return next(filter(None, map(_remainder_test, test.values)), None)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant):
        left, right = right, left
    if not (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(right, ast.Constant)):
        return None
    wanted, divisor = right.value, left.right
    if type(wanted) is not int or wanted <= 0:
        return None
    if isinstance(divisor, ast.Constant) and type(divisor.value) is int and divisor.value > wanted:
        return None
    return divisor, wanted


def zero_never_true(block: ast.AST, ctx: ModuleContext) -> tuple[ast.Call, ast.If] | None:
    """(the zero_grad, its `if`) when every zero_grad of this loop or step function runs under a remainder test
    that fails for a divisor of 1, and the block backwards and steps."""
    calls = list(expanded_calls(block.body, ctx))
    if not any(is_any_backward(c) for c, _ in calls):
        return None
    if not any(optimizer_step(c, ctx) for c, _ in calls) or sets_grad_to_none(block.body):
        return None
    zeros = [(c, via) for c, via in calls if is_zero_grad(c)]
    if not zeros or any(c is not via for c, via in zeros):
        return None  # a helper's zero_grad: its own conditions are not read here
    found = None
    for zero, _ in zeros:
        guard = _guard(zero, block, ctx)
        if guard is None:
            return None
        found = found or (zero, guard)
    return found


def _guard(zero: ast.Call, block: ast.AST, ctx: ModuleContext) -> ast.If | None:
    child = zero
    for ancestor in ctx.ancestors(zero):
        if ancestor is block:
            return None
        if isinstance(ancestor, LOOPS + FUNCTIONS):
            return None  # zeroed in an inner loop or a nested function: another part of the iteration
        if isinstance(ancestor, ast.If) and child in ancestor.body and _remainder_test(ancestor.test):
            return ancestor
        child = ancestor
    return None


def never_true_reason(guard: ast.If) -> str:
    divisor, wanted = _remainder_test(guard.test)
    return f"{ast.unparse(divisor)} is {wanted}" if wanted == 1 else f"{ast.unparse(divisor)} is {wanted} or less"
