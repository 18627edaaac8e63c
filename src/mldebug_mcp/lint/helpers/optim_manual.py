"""Lightning's manual optimisation seen as a training iteration, and where a step's zero_grad() sits.

A `training_step` with `automatic_optimization = False` back-propagates through `self.manual_backward(loss)`
and steps the optimisers `self.optimizers()` returns; it has no `.backward()` of its own, so the context does
not list it among the blocks that train.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_steps import expanded_calls


def manual_backwards(function: ast.AST, ctx: ModuleContext) -> list[tuple[ast.Call, ast.Call]]:
    """(backward, the call of the body that runs it) for each `self.manual_backward(...)` the function runs,
    itself or through a local helper (memoised per function)."""
    return ctx.memo(("optim_manual.backwards", function), lambda: [
        (c, via) for c, via in expanded_calls(function.body, ctx) if ctx.method_name(c) == "manual_backward"])


def zero_follows_step(zero: ast.Call, it) -> bool:
    """This zero_grad() comes right after a step of the same receiver (`opt_d.step(); opt_d.zero_grad()`)."""
    calls = [c for c, _ in it.calls]
    if zero not in calls:
        return False
    index = calls.index(zero)
    previous = calls[index - 1] if index else None
    return (previous is not None and isinstance(previous.func, ast.Attribute) and previous.func.attr == "step"
            and ast.unparse(previous.func.value) == ast.unparse(zero.func.value))


def zero_precedes_backward(zero: ast.Call, it, backwards: list[tuple[ast.Call, ast.Call]]) -> bool:
    """This zero_grad() comes right before a backward (`opt_c.zero_grad(); critic_loss.backward()`): the next
    backward of the iteration is the next call that is no part of its own receiver or argument."""
    calls = [c for c, _ in it.calls]
    if zero not in calls:
        return False
    following = {c for c, _ in backwards}
    for call in calls[calls.index(zero) + 1:]:
        if call in following:
            return True
        # the calls that build the backward's receiver (`self.loss(batch).backward()`) come first
        if not any(call in set(ast.walk(b.func)) or any(call in set(ast.walk(a)) for a in b.args) for b in following):
            return False
    return False
