import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.kinds import LOGITS, SIGMOID, SOFTMAX
from ..helpers.losses import input_kinds, loss_inputs, loss_name, probability_kind
from ..rule import Hit, Rule

NLL_LOSSES = {"torch.nn.functional.nll_loss", "torch.nn.NLLLoss"}


class NllWithoutLogSoftmax(Rule):
    """What it does: flags NLLLoss / F.nll_loss whose input is visibly not log-probabilities: a softmax or
    sigmoid output, or the raw output of a final nn.Linear (direct, nn.Sequential, or a same-file model).

    Why is this bad: nll_loss only picks -input at the target index. On probabilities the loss is
    stuck in [-1, 0]; on logits it is unbounded below and falls by inflating one logit. Both train
    without error while the model learns the wrong thing.
    """

    code = "MLD002"
    name = "nll-without-log-softmax"
    category = "loss"
    severity = "error"
    message = "{kind} passed to NLLLoss, which expects log-probabilities"
    why = "nll_loss just negates the input at the target class; on probabilities or logits that is not a likelihood."
    fix = "Apply F.log_softmax(logits, dim=1) before NLLLoss, or pass the raw logits to F.cross_entropy."
    evidence = "slavv"
    node_types = (ast.Call,)
    requires_text = ('nll_loss', 'NLLLoss')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    probs = F.softmax(model(x), dim=1)\n"
        "    return F.nll_loss(probs, y)\n"
    )
    GOOD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    log_probs = F.log_softmax(model(x), dim=1)\n"
        "    return F.nll_loss(log_probs, y)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if loss_name(node, ctx) not in NLL_LOSSES:
            return
        for arg in loss_inputs(node):
            found = [(where, traced.kind) for where, traced in input_kinds(arg, ctx)]
            for where, kind in found or [(arg, probability_kind(arg, ctx))]:
                if kind in {SOFTMAX, SIGMOID, LOGITS, "raw logits"}:
                    shown = "raw logits (final Linear)" if kind in {LOGITS, "raw logits"} else f"{kind} output"
                    yield Hit(where, self.message.format(kind=shown))
