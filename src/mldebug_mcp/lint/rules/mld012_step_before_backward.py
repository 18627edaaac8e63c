import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import CORRECT_TRAINING_LOOP, LOOPS, is_backward
from ..helpers.optim_values import optimizer_step
from ..rule import Hit, Rule


class StepBeforeBackward(Rule):
    """What it does: flags a loop body whose unconditional optimizer.step() comes before its
    unconditional loss.backward().

    Why is this bad: the step reads whatever gradients are there before this batch's backward.
    In the usual loop (zero_grad, forward, step, backward) that is nothing: zero_grad has just
    set them to None (its default since PyTorch 2.0), the optimiser skips every parameter, and
    the weights never change. Only where zero_grad sits after the step does each step apply the
    previous batch's gradients (the first step none); a model deeper than one layer then usually
    fails at the next backward, because the step changed weights its graph still needs.
    """

    code = "MLD012"
    name = "step-before-backward"
    category = "optimiser"
    severity = "error"
    message = "optimizer.step() runs before loss.backward() in the same iteration"
    why = "In the usual loop the step finds the gradients just cleared, so nothing trains; else it uses the previous batch's."
    fix = "Call loss.backward() first, then optimizer.step(): zero_grad(), forward, backward, step."
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
            if step is None and optimizer_step(call, ctx) and not call.args:
                step = call
            elif is_backward(call):
                if step is not None:
                    yield Hit(step)
                return
