import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import CORRECT_TRAINING_LOOP, LOOPS, is_backward, is_optimizer_step
from ..rule import Hit, Rule


class StepBeforeBackward(Rule):
    """What it does: flags a loop body whose unconditional optimizer.step() comes before its
    unconditional loss.backward().

    Why is this bad: each step applies the gradients of the previous batch (and the first
    step applies none), so the update always lags one batch behind the loss it came from.
    """

    code = "MLD012"
    name = "step-before-backward"
    category = "optimiser"
    severity = "error"
    message = "optimizer.step() runs before loss.backward() in the same iteration"
    why = "Each update uses the previous batch's gradients; the first step uses none."
    fix = "Call loss.backward() first, then optimizer.step()."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = LOOPS
    requires_text = ('backward',)  # skip modules that cannot contain the pattern
    BAD = (
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = loss_fn(model(x), y)\n"
        "        opt.step()\n"
        "        loss.backward()\n"
    )
    GOOD = CORRECT_TRAINING_LOOP

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if node not in ctx.backward_scopes:  # no backward() inside: not a training step
            return
        step: ast.Call | None = None
        for stmt in node.body:  # only statements that always run in this iteration
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                continue
            call = stmt.value
            if step is None and is_optimizer_step(call, ctx) and not call.args:
                step = call
            elif is_backward(call):
                if step is not None:
                    yield Hit(step)
                return
