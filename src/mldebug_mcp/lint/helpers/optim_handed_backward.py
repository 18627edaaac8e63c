"""A step function that hands its optimiser to a helper which runs the backward, then steps it, and clears nothing.

fairseq-like trainers split one update over files: `self.task.train_step(sample, model, criterion, self.optimizer)`
back-propagates (`optimizer.backward(loss)`, `loss.backward()`), the trainer's own `train_step` then calls
`self.optimizer.step()`. Where nothing zeroes the gradients, every update adds onto all earlier ones. The helper
may live in another file: each file tells, as project facts, which of its functions take an optimiser and run a
backward, and whether they clear gradients themselves.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import callee
from .loader_facts import scoped, told_in_scope
from .loops import is_backward, is_optimizer_step, is_zero_grad, sets_grad_to_none
from .optim_step_helpers import says_it_clears
from .optim_steps import FUNCTIONS, local_callee, top_statement, unconditional_in

HANDED_BARE = "handed-backward-bare"  # project fact (scoped): `<function>` takes an optimiser and backwards
HANDED_CLEARS = "handed-backward-clears"  # ... and clears gradients itself (or may: a zero/clear call)
OPTIMIZER_WORDS = ("opt", "solver")


def _optimizer_params(function: ast.AST) -> set[str]:
    args = function.args
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
            if a.arg.lower().startswith(OPTIMIZER_WORDS)}


def _clears(function: ast.AST) -> bool:
    """A zero_grad(), a `p.grad = None`, or a call named for clearing (`clear_grads(...)`, `self.zero_all()`)."""
    return any(isinstance(node, ast.Call) and says_it_clears(node) for node in ast.walk(function)) \
        or sets_grad_to_none(function.body)


def _backwards(function: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and is_backward(n) for n in ast.walk(function))


def handed_backward_facts(ctx: ModuleContext) -> dict[str, str]:
    """For each function of this file that takes an optimiser parameter and runs a backward: whether it clears."""
    found: dict[str, str] = {}
    for function in ctx.backward_scopes:  # the functions around a .backward() call, indexed once per file
        if isinstance(function, FUNCTIONS) and _optimizer_params(function):
            key = HANDED_CLEARS if _clears(function) else HANDED_BARE
            found.update(scoped(f"{key}:{function.name}", "1", ctx))
    return found


def _stepping(ctx: ModuleContext) -> dict[ast.AST, list[ast.Call]]:
    """The functions of this file that step an optimiser (`opt.step()`, no argument), with those steps; once per file."""
    def collect() -> dict[ast.AST, list[ast.Call]]:
        found: dict[ast.AST, list[ast.Call]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "step" and not call.args \
                    and is_optimizer_step(call, ctx):
                function = ctx.enclosing(call, FUNCTIONS)
                if function is not None:
                    found.setdefault(function, []).append(call)
        return found

    return ctx.memo(("optim_handed_backward.stepping",), collect)


def unzeroed_handed_step(function: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, str, str] | None:
    """(the statement that hands the optimiser over, its text, the helper's name) when `function` steps an
    optimiser on every call after handing it to a helper that backwards without clearing, and nothing in this
    file clears that optimiser."""
    steps = [n for n in _stepping(ctx).get(function, ()) if unconditional_in(n, function, ctx)]
    if not steps or _clears(function):
        return None
    optimizer = ast.unparse(steps[0].func.value)
    tail = optimizer.rsplit(".", 1)[-1]
    for call in ctx.by_type.get(ast.Call, ()):  # cleared anywhere in this file (`self.optimizer.zero_grad()`)
        if is_zero_grad(call) and ast.unparse(call.func.value).rsplit(".", 1)[-1] == tail:
            return None
    for call in ast.walk(function):
        if not isinstance(call, ast.Call) or call.lineno >= steps[0].lineno:
            continue
        handed = [a for a in [*call.args, *(k.value for k in call.keywords)] if ast.unparse(a) == optimizer]
        if not handed:
            continue
        helper = local_callee(call, ctx)
        name = callee(call.func)
        if helper is not None:
            runs = _backwards(helper) and not _clears(helper)
        else:
            runs = told_in_scope(ctx, f"{HANDED_BARE}:{name}") is not None \
                and told_in_scope(ctx, f"{HANDED_CLEARS}:{name}") is None
        if runs:
            return top_statement(call, function.body, ctx), optimizer, name
    return None
