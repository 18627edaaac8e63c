import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.kinds import ACTIVATIONS, RELU, module_output
from ..helpers.losses import input_kinds, loss_inputs, loss_name
from ..rule import Hit, Rule

LOGIT_LOSSES = {
    "torch.nn.CrossEntropyLoss", "torch.nn.BCEWithLogitsLoss", "torch.nn.MultiLabelSoftMarginLoss",
}
LOGIT_FUNCTIONS = {
    "torch.nn.functional.cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.functional.multilabel_soft_margin_loss",
}
# skorch nets -> their default criterion; the net calls criterion(module(X), y) (NeuralNetClassifier takes the
# log of the module's output first when the criterion is NLLLoss: a softmax module is right there)
SKORCH_NETS = {
    "skorch.NeuralNetClassifier": "torch.nn.NLLLoss", "skorch.classifier.NeuralNetClassifier": "torch.nn.NLLLoss",
    "skorch.NeuralNetBinaryClassifier": "torch.nn.BCEWithLogitsLoss",
    "skorch.classifier.NeuralNetBinaryClassifier": "torch.nn.BCEWithLogitsLoss",
    "skorch.NeuralNet": None, "skorch.net.NeuralNet": None,
}
RELU_MESSAGE = "ReLU output passed to {loss}: the logits are clipped at zero, so no class can be pushed below 0"


def loss_kind(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The qualified name of the loss a call computes: F.cross_entropy(...), criterion(...), or a parameter
    whose default is one (`def fit(model, loss_fn=nn.CrossEntropyLoss())`)."""
    name = loss_name(call, ctx)
    return name if name in LOGIT_FUNCTIONS or name in LOGIT_LOSSES else None


def _skorch_hit(call: ast.Call, ctx: ModuleContext, message: str) -> Hit | None:
    """skorch's `NeuralNetClassifier(module, criterion=nn.CrossEntropyLoss)` with a module returning probabilities."""
    net = ctx.call_name(call)
    if net not in SKORCH_NETS:
        return None
    given = next((k.value for k in call.keywords if k.arg == "criterion"), None)
    module = next((k.value for k in call.keywords if k.arg == "module"), call.args[0] if call.args else None)
    if module is None or isinstance(module, ast.Starred):
        return None
    if given is None:
        criterion = SKORCH_NETS[net]
    else:
        value = ctx.resolve(given)
        criterion = ctx.call_name(value) if isinstance(value, ast.Call) else ctx.qualname(value)
    if criterion not in LOGIT_LOSSES:
        return None
    kind = module_output(module, ctx)
    if kind not in ACTIVATIONS and kind != RELU:
        return None
    short = criterion.rsplit(".", 1)[-1]
    text = RELU_MESSAGE.format(loss=short) if kind == RELU else message.format(activation=kind, loss=short)
    return Hit(given if given is not None else call, text)


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
    requires_text = ('cross_entropy', 'CrossEntropyLoss', 'BCEWithLogits', 'binary_cross_entropy_with_logits', 'multilabel_soft_margin', 'MultiLabelSoftMargin', 'NeuralNetBinaryClassifier')  # skip modules that cannot contain the pattern
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
            hit = _skorch_hit(node, ctx, self.message)
            if hit is not None:
                yield hit
            return
        short = loss.rsplit(".", 1)[-1]
        for arg in loss_inputs(node):
            for where, kind in input_kinds(arg, ctx):
                if kind in ACTIVATIONS:
                    yield Hit(where, self.message.format(activation=kind, loss=short))
                elif kind == RELU:
                    yield Hit(where, RELU_MESSAGE.format(loss=short))
