"""A loss divided by a running micro-step counter on its way to backward().

Accumulation divides each micro-batch's loss by the configured number of micro-batches k. Dividing by a
counter that runs 1, 2, ..., k (`loss / (i + 1)`, `loss / accum_count`) weights the first micro-batch k
times more than the last one. A counter here is a loop's own variable (`for i, b in enumerate(...)`,
`for micro in range(k)`) or a name the loop increments (`n += 1`), and it is an accumulation counter when
it decides the step (`if n >= k:` / `if (i + 1) % k == 0:` around `opt.step()`) or counts the passes of
an inner loop after which the optimiser steps.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .loops import LOOPS, calls_in_order, is_backward, is_optimizer_step, is_zero_grad
from .optim_steps import FUNCTIONS

BACKWARD_WRAPPERS = ("accelerator", "fabric", "engine", "scaler", "amp")


def backward_loss(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The tensor a backward call differentiates: `loss.backward()`, `scaler.scale(loss).backward()`,
    `accelerator.backward(loss)`, `self.manual_backward(loss)`."""
    if not isinstance(call.func, ast.Attribute):
        return None
    receiver = call.func.value
    if call.func.attr == "manual_backward" or any(w in (ast.unparse(receiver).lower()) for w in BACKWARD_WRAPPERS) \
            and call.args:
        return call.args[0] if call.args else None
    if isinstance(receiver, ast.Call) and ctx.method_name(receiver) == "scale" and receiver.args:
        return receiver.args[0]
    return receiver


def divisions(expr: ast.AST, ctx: ModuleContext, seen: set[str], depth: int = 4) -> Iterator[ast.BinOp]:
    """Divisions on the path of `expr`, following the names it was assigned from in its function."""
    if depth < 0:
        return
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Div):
            yield expr
            yield from divisions(expr.left, ctx, seen, depth - 1)
        else:
            for side in (expr.left, expr.right):
                yield from divisions(side, ctx, seen, depth - 1)
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and ctx.method_name(expr) in {
            "mean", "sum", "float", "to", "squeeze"}:
        yield from divisions(expr.func.value, ctx, seen, depth - 1)
    elif isinstance(expr, ast.Name) and expr.id not in seen:
        seen.add(expr.id)
        for value in assigned_before(expr, ctx):
            yield from divisions(value, ctx, seen, depth - 1)


def assigned_before(name: ast.Name, ctx: ModuleContext) -> list[ast.AST]:
    """Values assigned to `name` in its function before it is read (`/=` counts as a division of itself)."""
    scope = ctx.scope_of(name)
    found: list[ast.AST] = []
    for node in ctx.in_scope(scope, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        if node.lineno >= name.lineno or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == name.id for tg in targets for t in ast.walk(tg)):
            if isinstance(node, ast.AugAssign):
                divided = ast.copy_location(ast.BinOp(left=name, op=node.op, right=node.value), node)
                found.append(divided if isinstance(node.op, ast.Div) else node.value)
            else:
                found.append(node.value)
    return found


def counter_name(divisor: ast.expr) -> ast.Name | None:
    """`i`, `i + 1`, `(step + 1)`, `i % k + 1` (the position within the cycle): the name a divisor counts with."""
    if isinstance(divisor, ast.Name):
        return divisor
    if isinstance(divisor, ast.BinOp) and isinstance(divisor.op, ast.Mod):
        return divisor.left if isinstance(divisor.left, ast.Name) else None
    if isinstance(divisor, ast.BinOp) and isinstance(divisor.op, ast.Add):
        consts = [s for s in (divisor.left, divisor.right) if isinstance(s, ast.Constant)]
        others = [s for s in (divisor.left, divisor.right) if not isinstance(s, ast.Constant)]
        if len(consts) == 1 and len(others) == 1 and isinstance(others[0], ast.Name | ast.BinOp):
            return counter_name(others[0])
    return None


def running_counter(name: ast.Name, backward: ast.Call, ctx: ModuleContext) -> bool:
    """`name` counts micro-steps of a loop around `backward` and decides (or precedes) the step."""
    for loop in (a for a in ctx.ancestors(backward) if isinstance(a, LOOPS)):
        if _loop_variable(name.id, loop) and _counts_steps(name.id, loop, ctx):
            return True
        if _incremented(name.id, loop) and _decides_step(name.id, loop, ctx):
            return True
    return False


def _loop_variable(name: str, loop: ast.AST) -> bool:
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    target = loop.target
    # `for i, batch in enumerate(loader)`: the index; `for micro in range(k)`: the variable
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id == name and _call_name(loop.iter) == "enumerate"
    return isinstance(target, ast.Name) and target.id == name and _call_name(loop.iter) == "range"


def _call_name(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Call):
        func = expr.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return None


def _incremented(name: str, loop: ast.AST) -> bool:
    return any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name)
               and n.target.id == name for n in ast.walk(loop))


def _decides_step(name: str, loop: ast.AST, ctx: ModuleContext) -> bool:
    """An `if` in the loop tests `name` and steps (or zeroes) the optimiser."""
    for node in ast.walk(loop):
        if isinstance(node, ast.If) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.test)):
            calls = calls_in_order(node.body)
            if any(is_optimizer_step(c, ctx) or is_zero_grad(c) for c in calls):
                return True
    return False


def _counts_steps(name: str, loop: ast.AST, ctx: ModuleContext) -> bool:
    """The loop's own variable decides the step, or the loop never steps and the step follows it."""
    if _decides_step(name, loop, ctx):
        return True
    if any(is_optimizer_step(c, ctx) for c in calls_in_order(loop.body)):
        return False
    outer = ctx.enclosing(loop, LOOPS + FUNCTIONS)
    body = outer.body if outer is not None else []
    return any(is_optimizer_step(c, ctx) and c.lineno > loop.end_lineno for c in calls_in_order(body)) and any(
        is_backward(c) for c in calls_in_order(loop.body))
