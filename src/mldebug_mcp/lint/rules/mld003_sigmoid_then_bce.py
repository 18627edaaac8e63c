import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.kinds import SIGMOID
from ..helpers.kinds.vocabulary import MODULES
from ..helpers.losses import input_kinds, loss_inputs, loss_name
from ..rule import Hit, Rule

BCE_LOSSES = {"torch.nn.functional.binary_cross_entropy": "F.binary_cross_entropy", "torch.nn.BCELoss": "BCELoss"}


class SigmoidThenBce(Rule):
    """What it does: flags a sigmoid applied in the training code (torch.sigmoid, F.sigmoid, .sigmoid(),
    nn.Sigmoid()(x), in the loss call, a few lines above it, or in a helper it calls) whose output goes
    to nn.BCELoss or F.binary_cross_entropy. A model that ends in a sigmoid by design (a GAN
    discriminator, a forward that returns probabilities) paired with BCELoss is left alone: that is
    the documented, working pairing for such a model.

    Why is this bad: the sigmoid saturates to exactly 0 or 1 in floating point and BCELoss clamps
    its log, so confidently wrong examples get a vanishing or zero gradient and stop teaching. It
    trains, just worse, and under fp16 autocast PyTorch refuses BCELoss altogether.
    BCEWithLogitsLoss fuses both steps with the log-sum-exp trick and stays exact.
    """

    code = "MLD003"
    name = "sigmoid-then-bce"
    category = "loss"
    severity = "warning"
    message = "sigmoid output passed to {loss}; use BCEWithLogitsLoss on the logits"
    why = "Sigmoid then BCE saturates and clamps, so badly wrong examples get ~zero gradient; fp16 autocast rejects it."
    fix = "Drop the sigmoid and use nn.BCEWithLogitsLoss / F.binary_cross_entropy_with_logits on the raw logits."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    requires_text = ('BCELoss', 'binary_cross_entropy')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "import torch.nn as nn\n"
        "criterion = nn.BCELoss()\n"
        "def step(model, x, y):\n"
        "    return criterion(torch.sigmoid(model(x)), y)\n"
    )
    GOOD = (
        "import torch.nn as nn\n"
        "criterion = nn.BCEWithLogitsLoss()\n"
        "def step(model, x, y):\n"
        "    return criterion(model(x), y)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        loss = BCE_LOSSES.get(loss_name(node, ctx) or "")
        if loss is None:
            return
        for arg in loss_inputs(node):
            for where, found in input_kinds(arg, ctx):
                if found.kind != SIGMOID:
                    continue
                loose = [o for o in found.origins if not _in_model(o, node, ctx)]
                if loose:  # a forward's own sigmoid is where the fix goes; elsewhere the loss call is
                    yield Hit(loose[0] if _forward_of(loose[0], ctx) else where, self.message.format(loss=loss))


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _forward_of(origin: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """The forward (or __call__) that applies this sigmoid, if any."""
    func = ctx.enclosing(origin, FUNCTIONS)
    return func if func is not None and func.name in {"forward", "__call__"} else None


def _in_model(origin: ast.AST, loss: ast.AST, ctx: ModuleContext) -> bool:
    """Whether a sigmoid is part of a model: applied in its forward, or a layer built into it. A
    forward that applies the sigmoid and then takes the BCE loss itself is not a model ending in a
    sigmoid: its logits are right there (ELECTRA's discriminator loss)."""
    if ctx.call_name(origin) in MODULES:
        return True  # nn.Sigmoid() as a layer of a Sequential
    func = _forward_of(origin, ctx)
    return func is not None and ctx.enclosing(loss, FUNCTIONS) is not func
