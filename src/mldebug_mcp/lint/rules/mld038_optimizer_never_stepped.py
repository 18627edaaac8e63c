import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.optim_unstepped import unstepped_backward
from ..rule import Hit, Rule


class OptimizerNeverStepped(Rule):
    """What it does: flags a training loop whose optimiser is built and zeroed but never stepped:
    `optimizer = Adam(...)`, then `optimizer.zero_grad()` and `loss.backward()` in the loop, and no
    `optimizer.step()` anywhere. An optimiser handed to anything (a scaler's `step(optimizer)`, a
    trainer, `accelerator.prepare`, a helper, a scheduler class of the project), stored, returned or
    bound again is quiet, since something else may step it; a torch or transformers learning-rate
    schedule (`StepLR(optimizer, ...)`) only sets the rate, so handing it one is no step.

    Why is this bad: backward only fills `.grad`; the weights change only when the optimiser steps.
    The loop runs, the loss is computed and logged, and the saved model is the initial one.
    """

    code = "MLD038"
    name = "optimizer-never-stepped"
    category = "optimiser"
    severity = "error"  # silent: the weights never change
    message = ("{optimizer} is zeroed and the loss is backpropagated, but {optimizer}.step() is never called: "
               "the weights never change")
    why = "backward() only computes gradients; without optimizer.step() no parameter is ever updated."
    fix = "Call optimizer.step() after loss.backward() (and before the next zero_grad())."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.Assign,)
    requires_text = ("zero_grad",)
    BAD = (
        "import torch\n"
        "def train(model, loader, loss_fn):\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss_fn(model(x), y).backward()\n"
    )
    GOOD = BAD + "        optimizer.step()\n"

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not isinstance(node.value, ast.Call):
            return
        found = unstepped_backward(node, ctx)
        if found is not None:
            name, backward = found
            yield Hit(backward, self.message.format(optimizer=name))
