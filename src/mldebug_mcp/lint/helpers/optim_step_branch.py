"""An `if` whose two sides both step one optimiser while only one side clears its gradients.

`if use_amp: scaler.step(opt); scaler.update()` / `else: opt.step(); opt.zero_grad()`: the loop (or
the step method a trainer's loop calls) does clear, so 'is zero_grad anywhere?' is satisfied, yet every
step taken through the other side adds the next gradients onto the old ones. The backward may sit
outside the `if` (it usually does); what matters is that both sides step and only one clears, and that
nothing else on the way from one step to the next clears: the rest of the block, the loops around it,
and the loops that call the method it sits in (a zero_grad in another branch of the caller's
`if env == ...:` chain does not run on this path).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import LOOPS, is_zero_grad, sets_grad_to_none
from .optim_steps import (
    FUNCTIONS,
    _says_it_clears,
    enclosing_iterations,
    expanded_calls,
    iteration,
)
from .optim_values import optimizer_step
from .optim_zeroing import cleared, keys, stepped_optimizer


def unzeroed_step_side(block: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, ast.If] | None:
    """(the last statement of the `if`, where the zero_grad both sides need belongs, the `if`) for an `if`
    in `block`'s own body (a loop or a function) whose one side steps and clears an optimiser and whose
    other side steps it without clearing; None when the gradients are cleared elsewhere on the path."""
    for branch_if in _ifs(block):
        for cleared_side, other_side in ((branch_if.body, branch_if.orelse), (branch_if.orelse, branch_if.body)):
            side_calls = [c for c, _ in expanded_calls(cleared_side, ctx)]
            zeros = [c for c in side_calls if is_zero_grad(c)]
            if not zeros:
                continue
            other = [c for c, _ in expanded_calls(other_side, ctx)]
            if any(is_zero_grad(c) or _says_it_clears(c) for c in other) or sets_grad_to_none(other_side):
                continue
            optimizer = _shared_optimizer(side_calls, other, ctx)
            if optimizer is None or not cleared(zeros, optimizer, ctx):
                continue
            step = next(c for c in other if optimizer_step(c, ctx))
            if not _cleared_elsewhere(block, branch_if, zeros, step, ctx):
                return _last_statement(branch_if), branch_if
    return None


def steps_here(function: ast.AST, ctx: ModuleContext) -> bool:
    """The function's own body steps an optimiser and clears one (a step helper a loop may call)."""
    calls = ctx.in_scope(function, (ast.Call,))
    return any(is_zero_grad(c) for c in calls) and any(optimizer_step(c, ctx) for c in calls)


def _ifs(block: ast.AST) -> list[ast.If]:
    """The `if` statements with an else of a block's body, not inside nested loops, functions or classes."""
    found, stack = [], list(block.body)
    while stack:
        node = stack.pop()
        if isinstance(node, LOOPS + FUNCTIONS + (ast.ClassDef,)):
            continue
        if isinstance(node, ast.If) and node.orelse:
            found.append(node)
        stack.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt))
    return sorted(found, key=lambda n: n.lineno)


def _shared_optimizer(side: list[ast.Call], other: list[ast.Call], ctx: ModuleContext) -> ast.AST | None:
    """The optimiser a step on the clearing side names that a step on the other side names too."""
    other_names = set()
    for call in other:
        optimizer = stepped_optimizer(call) if optimizer_step(call, ctx) else None
        if optimizer is not None:
            other_names |= keys(optimizer, ctx)
    for call in side:
        optimizer = stepped_optimizer(call) if optimizer_step(call, ctx) else None
        if optimizer is not None and keys(optimizer, ctx) & other_names:
            return optimizer
    return None


def _cleared_elsewhere(block: ast.AST, branch_if: ast.If, zeros: list[ast.Call], step: ast.Call,
                       ctx: ModuleContext) -> bool:
    """A zero_grad (or a clearing we cannot read) on the path through `step`: elsewhere in the block, in a
    loop around it, or in a loop that calls the function it sits in, unless it sits in another branch of
    an `if` that the path does not take."""
    ours = set(zeros)
    rest = [via for c, via in expanded_calls(block.body, ctx) if is_zero_grad(c) and c not in ours]
    if any(not _exclusive(via, branch_if, ctx) for via in rest):
        return True
    around = list(enclosing_iterations(branch_if, ctx))
    if isinstance(block, FUNCTIONS):
        around += [iteration(block, ctx)]
    for it in around:
        if it.manual:
            return True
        path = next((via for c, via in it.calls if c is step), None)
        opaque = set(it.opaque_zeros)  # a handed optimiser's zero_grad, `self.reset_grads()`: clears, we cannot say what
        for zero, via in it.calls:
            if (is_zero_grad(zero) or zero in opaque) and zero not in ours \
                    and (path is None or not _exclusive(via, path, ctx)):
                return True
    return False


def _exclusive(a: ast.AST, b: ast.AST, ctx: ModuleContext) -> bool:
    """`a` and `b` sit on different sides of one `if`: no run passes both."""
    for ancestor in ctx.ancestors(a):
        if isinstance(ancestor, ast.If):
            side_a = _side(a, ancestor, ctx)
            side_b = _side(b, ancestor, ctx)
            if side_a and side_b and side_a != side_b:
                return True
        elif isinstance(ancestor, FUNCTIONS):
            return False
    return False


def _side(node: ast.AST, branch_if: ast.If, ctx: ModuleContext) -> str | None:
    for candidate in (node, *ctx.ancestors(node)):
        if candidate in branch_if.body:
            return "body"
        if candidate in branch_if.orelse:
            return "orelse"
        if candidate is branch_if:
            return None
    return None


def _last_statement(branch_if: ast.If) -> ast.stmt:
    """The statement that ends the `if` (the innermost last one of its last side)."""
    last: ast.stmt = branch_if
    while True:
        body = getattr(last, "orelse", None) or getattr(last, "body", None)
        if not isinstance(body, list) or not body or not isinstance(body[-1], ast.stmt) or isinstance(
                last, FUNCTIONS + (ast.ClassDef,)):
            return last
        last = body[-1]
