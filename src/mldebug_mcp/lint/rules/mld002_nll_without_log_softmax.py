import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.losses import probability_kind
from ..rule import Hit, Rule


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
        if ctx.call_name(node) != "torch.nn.functional.nll_loss" and ctx.constructed(node.func) != "torch.nn.NLLLoss":
            return
        inputs = node.args[:1] or [k.value for k in node.keywords if k.arg == "input"]
        for arg in inputs:
            kind = probability_kind(arg, ctx)
            if kind in {"softmax", "sigmoid", "raw logits"}:
                shown = "raw logits (final Linear)" if kind == "raw logits" else f"{kind} output"
                yield Hit(arg, self.message.format(kind=shown))
