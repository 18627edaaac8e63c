import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import (
    CORRECT_TRAINING_LOOP,
    LOOPS,
    calls_in_order,
    is_backward,
    is_optimizer_step,
    is_zero_grad,
    sets_grad_to_none,
)
from ..rule import Hit, Rule


class MissingZeroGrad(Rule):
    """What it does: flags a loop that calls backward() and optimizer.step() but never clears
    the gradients (zero_grad(), or setting p.grad to None).

    Why is this bad: PyTorch accumulates gradients across backward calls. Without clearing,
    every step applies the sum of all gradients so far; the loss may still fall for a while.
    """

    code = "MLD010"
    name = "missing-zero-grad"
    category = "optimiser"
    severity = "error"
    message = "optimizer step in a loop that never clears gradients (no zero_grad)"
    why = "Gradients accumulate across iterations, so each step uses the sum of all past gradients."
    fix = "Call optimizer.zero_grad(set_to_none=True) once per step, before loss.backward()."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = LOOPS
    requires_text = ('backward',)  # skip modules that cannot contain the pattern
    BAD = (
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        loss = loss_fn(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
    )
    GOOD = CORRECT_TRAINING_LOOP

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if node not in ctx.backward_scopes:  # no backward() inside: not a training step
            return
        calls = list(calls_in_order(node.body))
        if not any(is_backward(c) for c in calls) or any(is_zero_grad(c) for c in calls):
            return
        if sets_grad_to_none(node.body):
            return
        # zero_grad inside a function the loop calls is invisible here: only flag when the
        # step itself is in this loop.
        for call in calls:
            if is_optimizer_step(call, ctx) and not _zeroed_elsewhere(node, ctx):
                yield Hit(call)
                return


def _zeroed_elsewhere(loop: ast.AST, ctx: ModuleContext) -> bool:
    """An enclosing loop that zeroes once per outer iteration still counts as zeroing."""
    for ancestor in ctx.ancestors(loop):
        if isinstance(ancestor, LOOPS) and any(is_zero_grad(c) for c in calls_in_order(ancestor.body)):
            return True
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            break
    return False
