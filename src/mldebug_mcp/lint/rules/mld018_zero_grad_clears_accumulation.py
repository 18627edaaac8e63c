import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.accum_window_start import zero_under_step_condition
from ..helpers.accum_zeroing import (
    backward_only_when_stepping,
    in_accumulating_context,
    in_backward_only_method,
    in_conditional_step_loop,
    in_micro_batch_loop,
)
from ..helpers.loops import is_zero_grad
from ..rule import Hit, Rule


class ZeroGradClearsAccumulation(Rule):
    """What it does: flags a zero_grad() that runs on every micro-batch of a gradient-accumulation
    loop while the optimiser steps only every k: a batch loop that steps under
    `if (i + 1) % k == 0` (or `if accelerator.sync_gradients`) and zeroes outside that branch; a
    module's zero_grad() (`model.zero_grad()`) inside `with accelerator.accumulate(model):`, where
    only the prepared optimiser's zero_grad is skipped until the sync step; any zero_grad() inside
    DDP's `with model.no_sync():`; an inner micro-batch loop that zeroes before each backward and
    steps after the loop; a trainer method that zeroes and backwards (`forward_backward`) while
    another method of its class steps; a zero_grad() (or a helper that runs one, `self._start_update()`)
    under the step's own accumulation test (`(i + 1) % k == 0`) but before the backward; a zero_grad() on
    every micro-batch of a loop that divides its loss by k but backwards only under the step's test.

    Why is this bad: accumulation sums k backwards into .grad before one step. Clearing on every
    micro-batch throws that sum away, so each step uses only the last micro-batch: the effective
    batch is k times smaller than configured, and nothing fails.
    """

    code = "MLD018"
    name = "zero-grad-clears-accumulation"
    category = "optimiser"
    severity = "error"  # silent: the effective batch shrinks k-fold and training still runs
    message = "zero_grad() runs on every micro-batch but the optimizer steps every k: the accumulated gradients are lost"
    why = "Each micro-batch's zero_grad() discards what earlier micro-batches accumulated, so a step sees one micro-batch."
    fix = "Zero the gradients together with the step (right after optimizer.step()), inside the accumulation branch."
    evidence = "pytorch-tutorials/gradients-accumulate"
    node_types = (ast.Call,)
    requires_text = ("zero_grad",)
    BAD = (
        "def train(model, opt, loader, loss_fn, accum=4):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        opt.zero_grad()\n"
        "        loss = loss_fn(model(x), y) / accum\n"
        "        loss.backward()\n"
        "        if (i + 1) % accum == 0:\n"
        "            opt.step()\n"
    )
    GOOD = (
        "def train(model, opt, loader, loss_fn, accum=4):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = loss_fn(model(x), y) / accum\n"
        "        loss.backward()\n"
        "        if (i + 1) % accum == 0:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n"
    )
    CONTEXT = ("{zero}() runs on every micro-batch inside {block}, which accumulates until the sync step: "
               "the accumulated gradients are lost (zero through the prepared optimizer, after its step)")
    MICRO = ("zero_grad() runs before each micro-batch's backward, but the optimizer steps after this loop: "
             "only the last micro-batch reaches the step")
    METHOD = ("{function} clears the gradients before its backward but never steps; {stepper} steps: called once per "
              "micro-batch, only the last micro-batch reaches the step")

    DROPPED = ("zero_grad() runs on every micro-batch and backward() only under the step's accumulation test: the "
               "micro-batches in between are computed and dropped, and each step sees one micro-batch divided by k; "
               "backward every micro-batch and zero after the step")

    WINDOW = ("gradients are cleared under the same condition that steps the optimizer later in this iteration: "
              "that is the window's last micro-batch, so the gradients of the micro-batches before it are lost "
              "and each step sees one; open the window where the previous step happened (e.g. `i % k == 0`) "
              "or zero right after the step")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(ctx.parent(node), ast.Expr) and zero_under_step_condition(node, ctx):
            yield Hit(node, self.WINDOW)
            return
        if not is_zero_grad(node) or not isinstance(node.func.value, ast.expr):
            return
        if in_accumulating_context(node, ctx):
            block = next(a for a in ctx.ancestors(node) if isinstance(a, ast.With | ast.AsyncWith))
            yield Hit(node, self.CONTEXT.format(zero=ast.unparse(node.func), block=ast.unparse(block.items[0].context_expr)))
        elif in_conditional_step_loop(node, ctx):
            yield Hit(node)
        elif in_micro_batch_loop(node, ctx):
            yield Hit(node, self.MICRO)
        elif backward_only_when_stepping(node, ctx):
            yield Hit(node, self.DROPPED)
        else:
            stepper = in_backward_only_method(node, ctx)
            if stepper is not None:
                function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                yield Hit(node, self.METHOD.format(function=f"{function.name}()", stepper=f"{stepper.name}()"))
