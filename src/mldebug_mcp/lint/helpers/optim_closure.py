"""A closure handed to `optimizer.step(closure)` that runs a backward and never clears the gradients.

LBFGS evaluates its closure several times per step (up to max_iter, more in a line search), and any
optimiser evaluates it once per step; the gradients of each evaluation add to those of the one before,
so the closure itself has to zero them. The closure may be a nested function, a method handed as
`self.closure`, a lambda or `functools.partial` around either, or passed as `closure=`; its backward may
run in a helper it calls. A zero_grad() before the step call, outside the closure, is enough only for an
optimiser that calls the closure once per step (not LBFGS, unless max_iter=1), and only when it runs in
the same iteration as the step.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import LOOPS, is_zero_grad
from .optim_steps import (
    DEPTH,
    FUNCTIONS,
    _method,
    function_named,
    iteration,
    local_callee,
    unconditional_in,
)


def closure_steps(ctx: ModuleContext) -> dict[ast.AST, list[ast.Call]]:
    """Each local function handed as a closure to a `.step(...)` call, with those calls (memoised)."""
    def index() -> dict[ast.AST, list[ast.Call]]:
        found: dict[ast.AST, list[ast.Call]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
                continue
            for arg in [*call.args[:1], *(k.value for k in call.keywords if k.arg == "closure")]:
                function = _closure_function(arg, call, ctx)
                if function is not None:
                    found.setdefault(function, []).append(call)
        return found
    return ctx.memo(("optim_closure.closure_steps",), index)


def _closure_function(arg: ast.expr, step: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    if isinstance(arg, ast.Lambda):  # `lambda: self._closure(x, y)`
        body = arg.body
        return local_callee(body, ctx) if isinstance(body, ast.Call) else None
    if isinstance(arg, ast.Call) and (ctx.call_name(arg) or "").endswith("partial") and arg.args:
        arg = arg.args[0]  # functools.partial(closure, batch)
    if isinstance(arg, ast.Name):  # a nested def of an enclosing function, or a module function
        return function_named(arg, ctx)
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self":
        cls = ctx.enclosing_class(arg)  # `self.closure`: a method of this class
        return _method(cls, arg.attr, ctx, DEPTH) if cls is not None else None
    return None


def unzeroed_closure(function: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, ast.Call] | None:
    """(the closure's first statement, the step it is handed to) when the closure backwards, never clears
    the gradients, and the step call does not clear them before each evaluation."""
    steps = closure_steps(ctx).get(function)
    if not steps or not isinstance(function, FUNCTIONS):
        return None
    it = iteration(function, ctx)
    if not it.backwards or it.clears:
        return None
    for step in steps:
        if _evaluates_repeatedly(step, ctx) or not _zeroed_around(step, ctx):
            body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            return (body or function.body)[0], step
    return None


def _evaluates_repeatedly(step: ast.Call, ctx: ModuleContext) -> bool:
    """The stepped optimiser is an LBFGS (several closure evaluations per step) not capped at max_iter=1."""
    receiver = step.func.value
    built = ctx.resolve(receiver)
    name = ctx.constructed(receiver) or (ctx.call_name(built) if isinstance(built, ast.Call) else "") or ""
    if not name.endswith("LBFGS"):
        return False
    once = any(k.arg == "max_iter" and isinstance(k.value, ast.Constant) and k.value.value == 1
               for k in getattr(built, "keywords", []))
    return not once


def _zeroed_around(step: ast.Call, ctx: ModuleContext) -> bool:
    """A zero_grad() in the same iteration (or function body) as the step call, before it."""
    owner = ctx.enclosing(step, LOOPS + FUNCTIONS)
    if not isinstance(owner, LOOPS):
        return True  # one step per call of this function (or of the script): who calls it may zero; stay quiet
    return any(is_zero_grad(c) and c.lineno <= step.lineno and unconditional_in(c, owner, ctx)
               for c, _ in iteration(owner, ctx).calls) or iteration(owner, ctx).opaque_zeros != []
