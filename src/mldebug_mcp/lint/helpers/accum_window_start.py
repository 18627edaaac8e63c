"""A zero_grad() meant to open each accumulation window that runs under the step's own condition.

`if (i + 1) % k == 0: start_update()` (which zeroes) before the backward, and the step under the same
`(i + 1) % k == 0` after it (or after `if (i + 1) % k: continue`): the condition holds on the window's
last micro-batch, so the gradients of the k - 1 micro-batches before it are cleared just before the
last one's backward and every step sees one micro-batch. The window opens where the step's condition
held on the micro-batch before (`i % k == 0`); zeroing under a different test is not this bug.
The zero may run in a local helper the guarded call runs (`self._start_update()`).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .accum_zeroing import accumulation_test
from .loops import LOOPS, is_zero_grad
from .optim_steps import FUNCTIONS, helper_calls, iteration, local_callee, top_statement

_STOPS = LOOPS + FUNCTIONS


def zero_under_step_condition(call: ast.Call, ctx: ModuleContext) -> bool:
    """`call` clears gradients under an `if` whose test is the one that guards the loop's later step,
    and a backward runs between them on every micro-batch."""
    candidates, loop = _ifs_around(call, ctx)
    if not candidates or not isinstance(loop, LOOPS) or not _clears(call, ctx):
        return False
    guard = next((g for g in candidates if accumulation_test(g.test, ctx)), None)
    if guard is None:
        return False
    key = _key(guard.test, True)
    it = iteration(loop, ctx)
    opened = top_statement(guard, loop.body, ctx)
    # the backward and the step run after the guard's statement in the same pass (not in its other branch)
    backwards = [via for _, via in it.backwards if _after(via, opened, loop, ctx)]
    if not backwards:
        return False
    first_backward = min(b.lineno for b in backwards)
    for _, via in it.steps:
        if via.lineno <= first_backward or not _after(via, opened, loop, ctx):
            continue
        condition = _step_condition(via, loop, ctx)
        if condition is not None and condition[0] == key and not _changed_between(guard, condition[1], loop):
            return True
    return False


def _after(via: ast.Call, opened: ast.AST | None, loop: ast.AST, ctx: ModuleContext) -> bool:
    top = top_statement(via, loop.body, ctx)
    return opened is not None and top is not None and loop.body.index(top) > loop.body.index(opened)


def _ifs_around(call: ast.Call, ctx: ModuleContext) -> tuple[list[ast.If], ast.AST | None]:
    """The `if`s (innermost first) whose body runs the call, up to its loop or function, and that loop."""
    found = []
    child: ast.AST = call
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, _STOPS):
            return found, ancestor
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            found.append(ancestor)
        child = ancestor
    return found, None


def _clears(call: ast.Call, ctx: ModuleContext) -> bool:
    if is_zero_grad(call):
        return True
    return local_callee(call, ctx) is not None and any(is_zero_grad(c) for c in helper_calls(call, ctx))


def _step_condition(via: ast.Call, loop: ast.AST, ctx: ModuleContext) -> tuple[tuple, ast.AST] | None:
    """The step's condition as a key, and the statement that states it: the `if` around the step, or an
    earlier `if T: continue` in the loop body (the step runs when T is false)."""
    child: ast.AST = via
    for ancestor in ctx.ancestors(via):
        if ancestor is loop:
            break
        if isinstance(ancestor, ast.If) and accumulation_test(ancestor.test, ctx):
            return _key(ancestor.test, child in ancestor.body), ancestor
        child = ancestor
    top = child  # the loop-body statement holding the step
    if top not in loop.body:
        return None
    for stmt in loop.body[: loop.body.index(top)]:
        if isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], ast.Continue | ast.Break) \
                and not stmt.orelse and accumulation_test(stmt.test, ctx):
            return _key(stmt.test, False), stmt
    return None


def _key(test: ast.expr, holds: bool) -> tuple:
    """`X == 0` / `not X` (X is zero) and `X` / `X != 0` (X is not zero) as one form; other tests as written."""
    zero = None
    subject = test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        zero, subject = True, test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value == 0 and isinstance(test.ops[0], ast.Eq | ast.NotEq):
        zero, subject = isinstance(test.ops[0], ast.Eq), test.left
    elif isinstance(test, ast.BinOp):
        zero = False
    if zero is None:
        return ("test", ast.dump(test), holds)
    return ("zero", ast.dump(subject), zero == holds)


def _changed_between(first: ast.AST, second: ast.AST, loop: ast.AST) -> bool:
    """A name the test reads is assigned between the two statements (a counter bumped in between)."""
    read = {ast.dump(n).replace("Load", "") for n in ast.walk(first.test) if isinstance(n, ast.Name | ast.Attribute)}
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign | ast.AugAssign) and first.lineno < node.lineno < second.lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(ast.dump(t).replace("Store", "") in read for t in targets):
                return True
    return False
