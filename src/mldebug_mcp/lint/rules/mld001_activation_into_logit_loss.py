import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule

LOGIT_LOSSES = {
    "torch.nn.CrossEntropyLoss", "torch.nn.BCEWithLogitsLoss", "torch.nn.MultiLabelSoftMarginLoss",
}
LOGIT_FUNCTIONS = {
    "torch.nn.functional.cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.functional.multilabel_soft_margin_loss",
}


def loss_kind(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The qualified name of the loss a call computes: F.cross_entropy(...) or criterion(...)."""
    name = ctx.call_name(call)
    if name in LOGIT_FUNCTIONS:
        return name
    built = ctx.constructed(call.func)
    if built in LOGIT_LOSSES:
        return built
    return None


class ActivationIntoLogitLoss(Rule):
    """What it does: flags softmax, log_softmax or sigmoid outputs passed to a loss that applies
    its own (log-)softmax or sigmoid: CrossEntropyLoss, F.cross_entropy, BCEWithLogitsLoss.

    Why is this bad: the activation is applied twice. Training still runs and the loss still
    falls, but gradients shrink and the loss cannot reach its minimum. The activation may be
    hidden in the model's forward, in a helper, or in another file of the same run.
    """

    code = "MLD001"
    name = "activation-into-logit-loss"
    category = "loss"
    severity = "error"
    message = "{activation} output passed to {loss}, which expects raw logits"
    why = "The loss applies its own softmax/sigmoid, so the activation is applied twice and training silently degrades."
    fix = "Pass the raw logits to the loss; apply softmax/sigmoid only for predictions or metrics."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.Call,)
    requires_text = ('cross_entropy', 'CrossEntropyLoss', 'BCEWithLogits', 'binary_cross_entropy_with_logits', 'multilabel_soft_margin', 'MultiLabelSoftMargin')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "def step(model, x, y):\n"
        "    probs = F.softmax(model(x), dim=1)\n"
        "    return criterion(probs, y)\n"
    )
    GOOD = (
        "import torch.nn as nn\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "def step(model, x, y):\n"
        "    logits = model(x)\n"
        "    return criterion(logits, y)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        loss = loss_kind(node, ctx)
        if loss is None:
            return
        inputs = node.args[:1] or [k.value for k in node.keywords if k.arg == "input"]
        for arg in inputs:
            activation = ctx.activation_of(arg)
            if activation:
                short = loss.rsplit(".", 1)[-1]
                yield Hit(arg, self.message.format(activation=activation, loss=short))
