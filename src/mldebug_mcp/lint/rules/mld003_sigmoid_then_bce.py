import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.kinds import SIGMOID
from ..helpers.losses import input_kinds, loss_inputs, loss_name, probability_kind
from ..rule import Hit, Rule

BCE_LOSSES = {"torch.nn.functional.binary_cross_entropy": "F.binary_cross_entropy", "torch.nn.BCELoss": "BCELoss"}


class SigmoidThenBce(Rule):
    """What it does: flags a sigmoid output (torch.sigmoid, F.sigmoid, .sigmoid(), nn.Sigmoid(), an
    nn.Sequential ending in nn.Sigmoid, or a model whose forward returns one) passed to nn.BCELoss or
    F.binary_cross_entropy.

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
            found = input_kinds(arg, ctx) or [(arg, probability_kind(arg, ctx))]
            for where, kind in found:
                if kind == SIGMOID:
                    yield Hit(where, self.message.format(loss=loss))
