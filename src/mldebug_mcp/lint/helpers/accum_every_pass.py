"""An optimiser stepped on every pass of a loop that says it accumulates gradients.

The loop backwards on every pass and divides the loss by an accumulation count (`loss /= grad_accum_steps`),
or keeps a modulo test on such a count (`if step % gradient_accumulation_steps == 0:` around the clip and
the global-step counter), yet `opt.step()` runs on every pass, guarded at most by `if opt is not None:`:
each step uses one micro-batch (scaled down by k), so nothing is accumulated. A step under any other test,
inside `with accelerator.accumulate(model):` (the library skips the early steps), or in an outer loop over
the windows, is left alone; a step outside a modulo test that also steps it is accum_stray_step's.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .accum_step_condition import modulo_test
from .graph import callee
from .loops import LOOPS, is_any_backward
from .optim_clip_mismatch import CLIPS as GRADIENT_CLIPS
from .optim_steps import CONDITIONAL, FUNCTIONS, expanded_calls
from .optim_values import optimizer_step


def every_pass_step(loop: ast.AST, ctx: ModuleContext) -> tuple[ast.Call, str] | None:
    """(the call that steps on every pass, what shows the loop accumulates) for an accumulating loop."""
    if loop not in ctx.backward_scopes:
        return None  # no .backward() in it: most loops of a file, skipped before walking their calls
    calls = list(expanded_calls(loop.body, ctx))
    if not any(is_any_backward(c) and _every_pass(via, loop, ctx) for c, via in calls):
        return None
    steps = [via for c, via in calls if optimizer_step(c, ctx) and ctx.enclosing(via, LOOPS) is loop]
    if not steps or _skips_after_modulo(loop, ctx) or any(_under_modulo(s, loop, ctx) for s in steps):
        return None
    sign = _accumulation_sign(loop, ctx)
    if sign is None:
        return None
    for step in steps:
        if _every_pass(step, loop, ctx):
            return step, sign
    return None


def _accum_named(expr: ast.AST) -> bool:
    return "accum" in ast.unparse(expr).lower()


def _accumulation_sign(loop: ast.AST, ctx: ModuleContext) -> str | None:
    """The division or modulo test of this loop's own body on an accumulation count."""
    for node in ast.walk(loop):
        if ctx.enclosing(node, (*LOOPS, *FUNCTIONS)) is not loop:
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div) and _accum_named(node.value):
            return ast.unparse(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _accum_named(node.right):
            return ast.unparse(node)
        if isinstance(node, ast.If):
            test = modulo_test(node.test)
            if test is not None and (_accum_named(test.divisor) or _clips(node.body)):
                return ast.unparse(node.test)
            if _divides_when_above_one(node):
                return ast.unparse(node.body[0])
    return None


CLIPS = {*GRADIENT_CLIPS, "unscale_"}


def _clips(body: list[ast.stmt]) -> bool:
    """The block clips or unscales the gradients: work done once per accumulated window."""
    return any(isinstance(n, ast.Call) and callee(n.func) in CLIPS for stmt in body for n in ast.walk(stmt))


def _divides_when_above_one(node: ast.If) -> bool:
    """`if k > 1: loss = loss / k` (or `loss /= k`): k is a count of micro-batches per step."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Gt)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 1):
        return False
    count = ast.unparse(test.left)
    for stmt in node.body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Div) and ast.unparse(stmt.value) == count:
            return True
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, ast.Div) \
                and ast.unparse(stmt.value.right) == count:
            return True
    return False


def _skips_after_modulo(loop: ast.AST, ctx: ModuleContext) -> bool:
    """A modulo test in the loop's own body that skips the rest of the pass (`if i % k == 0: continue`), also
    through a flag holding one (`is_accumulating = n % k != 0` ... `if is_accumulating: continue`: fish-speech's
    Fabric loop, blind split 14)."""
    return any(isinstance(stmt, ast.If) and _modulo_or_flag(stmt.test, ctx) and any(
        isinstance(n, (ast.Continue, ast.Break, ast.Return)) for s in stmt.body + stmt.orelse for n in ast.walk(s))
        for stmt in loop.body)


def _modulo_or_flag(test: ast.expr, ctx: ModuleContext) -> bool:
    if modulo_test(test) is not None:
        return True
    inner = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
    value = ctx.resolve(inner) if isinstance(inner, ast.Name) else None
    return isinstance(value, ast.expr) and value is not inner and modulo_test(value) is not None


def _under_modulo(node: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    """Under a modulo test inside `loop`."""
    for ancestor in ctx.ancestors(node):
        if ancestor is loop:
            return False
        if isinstance(ancestor, ast.If) and modulo_test(ancestor.test) is not None:
            return True
    return False


def _every_pass(node: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    """`node` runs on every pass of `loop`: only with-blocks, try bodies and `if x is not None:` lie between."""
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is loop:
            return True
        if isinstance(ancestor, ast.With | ast.AsyncWith) and any(
                "accumulate" in ast.unparse(item.context_expr) for item in ancestor.items):
            return False  # accelerate's accumulate() context skips the step until the window is complete
        if isinstance(ancestor, ast.If) and child in ancestor.body and _none_guard(ancestor.test):
            child = ancestor
            continue
        if isinstance(ancestor, CONDITIONAL + LOOPS) or (isinstance(ancestor, ast.Try) and child in ancestor.orelse):
            return False
        child = ancestor
    return False


def _none_guard(test: ast.expr) -> bool:
    """`if opt is not None:`: a guard on whether the object exists, true on every pass."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
