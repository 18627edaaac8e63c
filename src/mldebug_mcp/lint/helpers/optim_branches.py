"""A branch of a training iteration that backwards and steps without the zero_grad its sibling branch has.

`if args.amp: opt.zero_grad(); scaler.scale(loss).backward(); scaler.step(opt)` / `else: loss.backward();
opt.step()`: the loop clears gradients, so a rule that asks 'is zero_grad anywhere in the loop?' is
satisfied, yet every iteration that takes the else branch accumulates. Every path from one step to the
next must clear; here the paths are the two sides of one `if`.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import (
    LOOPS,
    is_backward,
    is_zero_grad,
    sets_grad_to_none,
)
from .optim_steps import FUNCTIONS, expanded_calls, unconditional_in
from .optim_values import optimizer_step


def _calls(block: list[ast.stmt], ctx: ModuleContext) -> list[ast.Call]:
    return [c for c, _ in expanded_calls(block, ctx)]


def _ifs(loop: ast.AST) -> list[ast.If]:
    """The `if` statements of a loop body, not inside nested loops or functions."""
    found, stack = [], list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If):
            found.append(node)
        if isinstance(node, LOOPS + FUNCTIONS + (ast.ClassDef,)):
            continue
        stack.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt))
    return sorted(found, key=lambda n: n.lineno)


def unzeroed_branch(loop: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, ast.If] | None:
    """(the statement running the backward of the branch that never zeroes, the `if`), when the loop's only
    zero_grad calls sit in one branch of an `if` whose other branch also backwards, and that other branch
    reaches a step (its own, or one after the `if` that runs every iteration)."""
    zeros_in_loop = [c for c, _ in expanded_calls(loop.body, ctx) if is_zero_grad(c)]
    for branch_if in _ifs(loop):
        if not branch_if.orelse:
            continue
        for cleared_side, other_side in ((branch_if.body, branch_if.orelse), (branch_if.orelse, branch_if.body)):
            cleared = _calls(cleared_side, ctx)
            other = _calls(other_side, ctx)
            zeros = [c for c in cleared if is_zero_grad(c)]
            if not zeros or not any(is_backward(c) for c in cleared):
                continue
            if any(is_zero_grad(c) for c in other) or sets_grad_to_none(other_side):
                continue
            if any(z not in zeros and not _other_optimizer(z, zeros) for z in zeros_in_loop):
                continue  # zeroed elsewhere in the iteration too
            backward = next((c for c in other if is_backward(c)), None)
            if backward is None:
                continue
            steps_after = [c for c, _ in expanded_calls(loop.body, ctx) if optimizer_step(c, ctx)
                           and c.lineno > branch_if.end_lineno and unconditional_in(c, loop, ctx)]
            if any(optimizer_step(c, ctx) for c in other) or steps_after:
                return _statement_of(backward, other_side, ctx), branch_if
    return None


def _other_optimizer(zero: ast.Call, zeros: list[ast.Call]) -> bool:
    """`d_optim.zero_grad()` elsewhere in the loop while the branch's zero_grad clears `optim`: another optimiser's,
    which says nothing about this one (a model's or an unnamed receiver's zero_grad may clear anything)."""
    receiver = ast.unparse(zero.func.value) if isinstance(zero.func, ast.Attribute) else ""
    cleared = {ast.unparse(z.func.value) for z in zeros if isinstance(z.func, ast.Attribute)}
    return bool(receiver) and receiver not in cleared and "opt" in receiver.lower() \
        and all("opt" in c.lower() for c in cleared)


def unzeroed_loss_branch(loop: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, ast.If] | None:
    """(the statement of the branch that never zeroes which computes the loss, the `if`), when the loop's only
    zero_grad calls sit in one side of an `if`, neither side backwards, and the backward and a step after the
    `if` run every iteration (`if moe: loss = ... else: model.zero_grad(); loss = ...`, then `loss.backward()`)."""
    calls = [c for c, _ in expanded_calls(loop.body, ctx)]
    zeros_in_loop = [c for c in calls if is_zero_grad(c)]
    for branch_if in _ifs(loop):
        if not branch_if.orelse or not unconditional_in(branch_if, loop, ctx):
            continue
        after = [c for c in calls if c.lineno > branch_if.end_lineno and unconditional_in(c, loop, ctx)]
        backward = next((c for c in after if is_backward(c) and isinstance(c.func.value, ast.Name)), None)
        if backward is None or not any(optimizer_step(c, ctx) and c.lineno > backward.lineno for c in after):
            continue
        for cleared_side, other_side in ((branch_if.body, branch_if.orelse), (branch_if.orelse, branch_if.body)):
            cleared, other = _calls(cleared_side, ctx), _calls(other_side, ctx)
            zeros = [c for c in cleared if is_zero_grad(c)]
            if not zeros or any(z not in zeros for z in zeros_in_loop) or any(is_backward(c) for c in cleared + other):
                continue
            if any(is_zero_grad(c) for c in other) or sets_grad_to_none(other_side):
                continue
            loss = backward.func.value.id
            computed = [n for stmt in other_side for n in ast.walk(stmt) if isinstance(n, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == loss for t in n.targets)]
            if computed:  # the branch computes the loss the shared backward takes
                return computed[-1], branch_if
    return None


def _statement_of(call: ast.Call, block: list[ast.stmt], ctx: ModuleContext) -> ast.stmt:
    """The statement of `block` (or nested in its with-, try- or if-blocks) that runs `call`."""
    for candidate in (call, *ctx.ancestors(call)):
        if candidate in block:
            # into with- and try-blocks, and into the side of an `if` (down an `elif` chain) that runs the call
            while isinstance(candidate, ast.With | ast.AsyncWith | ast.Try | ast.If):
                sides = (candidate.body, candidate.orelse) if isinstance(candidate, ast.If) else (candidate.body,)
                inner = next((s for side in sides for s in side if call in set(ast.walk(s))), None)
                if inner is None:
                    break
                candidate = inner
            return candidate
    return block[0]


def unzeroed_manual_step(function: ast.AST, ctx: ModuleContext) -> ast.Call | None:
    """The optimiser step of a Lightning `training_step` with manual optimisation (`self.manual_backward`)
    that never clears gradients, itself or through the helpers it calls; loops inside it report themselves."""
    if function.name != "training_step" or ctx.enclosing_class(function) is None:
        return None
    calls = [c for c, _ in expanded_calls(function.body, ctx)]
    if not any(ctx.method_name(c) == "manual_backward" for c in calls):
        return None
    if any(is_zero_grad(c) for c in calls) or sets_grad_to_none(function.body):
        return None
    if any(isinstance(n, LOOPS) for n in ast.walk(function)):
        return None
    cls = ctx.enclosing_class(function)
    hooks = {n.name for n in cls.body if isinstance(n, FUNCTIONS)}
    if "optimizer_zero_grad" in hooks or "on_before_backward" in hooks or "on_train_batch_start" in hooks:
        return None  # zeroed in a hook we do not follow
    return next((c for c in calls if optimizer_step(c, ctx) or _manual_step(c, ctx)), None)


def _manual_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """`opt.step()` on `opt = self.optimizers()` (or one of them)."""
    if ctx.method_name(call) != "step" or call.args or not isinstance(call.func, ast.Attribute):
        return False
    receiver = call.func.value
    value = ctx.resolve(receiver) if isinstance(receiver, ast.Name) else receiver
    while isinstance(value, ast.Subscript):
        value = value.value
    if isinstance(value, ast.Name):
        value = ctx.resolve(value)
    return isinstance(value, ast.Call) and ctx.method_name(value) == "optimizers"


def zeroed_only_sometimes(loop: ast.AST, it, ctx: ModuleContext) -> ast.Call | None:
    """The loop's only zero_grad() calls all run under conditions (`if i % log_every == 0:`) that do not
    guard the step, while a backward and a step run on every iteration: steps in between accumulate."""
    direct = [c for c, via in it.calls if c is via]
    zeros = [c for c in it.zeros if c in direct]
    if not zeros or len(zeros) != len(it.zeros):
        return None
    if any(unconditional_in(z, loop, ctx) for z in zeros):
        return None
    steps = [s for s, via in it.steps if s is via and unconditional_in(s, loop, ctx)]
    backwards = [b for b, via in it.backwards if b is via and unconditional_in(b, loop, ctx)]
    if not steps or not backwards:
        return None
    guards = []
    for zero in zeros:
        inside = []
        for ancestor in ctx.ancestors(zero):
            if ancestor is loop:
                break
            if isinstance(ancestor, LOOPS + FUNCTIONS):
                return None  # zeroed in an inner loop: another optimiser's part of the iteration
            if isinstance(ancestor, ast.If):
                inside.append(ancestor)
        if not inside:
            return None
        guards += inside
    # a branch that also computes the loss (one arm per data source) is a flavour of the iteration, not a
    # condition on clearing
    if any(isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign) for g in guards for n in ast.walk(g)):
        return None
    if any(g in set(ctx.ancestors(s)) for g in guards for s in steps):
        return None
    return zeros[0]
