import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.evaluation import strip_calls
from ..helpers.graph import held_name
from ..helpers.kinds import LOGITS, SIGMOID, SOFTMAX
from ..helpers.losses import SHAPE_METHODS, input_kinds, loss_inputs, loss_name, probability_kind, strip_shape_ops
from ..rule import Hit, Rule

LAYOUT_METHODS = SHAPE_METHODS | {"t"}  # what a value is does not depend on its layout: `logits.t()` are logits

# the losses whose input must be log-probabilities, and the name the message gives each
LOG_PROB_LOSSES = {
    "torch.nn.functional.nll_loss": "NLLLoss", "torch.nn.NLLLoss": "NLLLoss",
    "torch.nn.functional.ctc_loss": "CTCLoss", "torch.nn.CTCLoss": "CTCLoss",
    "torch.nn.functional.kl_div": "KLDivLoss", "torch.nn.KLDivLoss": "KLDivLoss",
}


class NllWithoutLogSoftmax(Rule):
    """What it does: flags NLLLoss / F.nll_loss, CTCLoss / F.ctc_loss and KLDivLoss / F.kl_div whose input is
    visibly not log-probabilities: a softmax or sigmoid output, or the raw output of a final nn.Linear (direct,
    nn.Sequential, or a same-file model); and, as a warning, a tensor whose name says logits (`frame_logits`,
    `out["logits"]`) with no log_softmax in sight. A criterion also assigned a loss that takes scores (chosen by a
    setting) is left alone.

    Why is this bad: nll_loss only picks -input at the target index. On probabilities the loss is
    stuck in [-1, 0]; on logits it is unbounded below and falls by inflating one logit. CTC sums the
    input as log-probabilities over alignments, and kl_div computes target * (log target - input):
    given probabilities or logits, both compute a number that is not the loss they are named for.
    All of them train without error while the model learns the wrong thing.
    """

    code = "MLD002"
    name = "nll-without-log-softmax"
    category = "loss"
    severity = "error"
    message = "{kind} passed to {loss}, which expects log-probabilities"
    why = "nll_loss just negates the input at the target class; on probabilities or logits that is not a likelihood."
    fix = ("Apply F.log_softmax(logits, dim=...) over the classes first (or pass raw logits to F.cross_entropy "
           "instead of NLLLoss).")
    evidence = "slavv"
    node_types = (ast.Call,)
    requires_text = ("nll_loss", "NLLLoss", "ctc_loss", "CTCLoss", "kl_div", "KLDivLoss")
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
        loss = LOG_PROB_LOSSES.get(loss_name(node, ctx))
        if loss is None or _may_be_another_loss(node, ctx):
            return
        for arg in loss_inputs(node) or [k.value for k in node.keywords if k.arg == "log_probs"]:
            found = [(where, traced.kind) for where, traced in input_kinds(arg, ctx)]
            for where, kind in found or [(arg, probability_kind(arg, ctx))]:
                if kind in {SOFTMAX, SIGMOID, LOGITS, "raw logits"}:
                    shown = "raw logits (final Linear)" if kind in {LOGITS, "raw logits"} else f"{kind} output"
                    yield Hit(where, self.message.format(kind=shown, loss=loss))
            if not found and probability_kind(arg, ctx) is None:
                name = _logits_name(arg, ctx)
                if name is not None:
                    yield Hit(arg, self.message.format(kind=f"`{name}`, named as logits,", loss=loss),
                              severity="warning")


def _may_be_another_loss(call: ast.Call, ctx: ModuleContext) -> bool:
    """The criterion called is also assigned a loss that takes scores (`self.vis_criterion = nn.KLDivLoss()` in one
    branch, `nn.MSELoss()` in another: ViLBERT picks one by a setting the file cannot read)."""
    if not isinstance(call.func, ast.Name | ast.Attribute):
        return False
    names = {ctx.call_name(v) for v in ctx.values_of(call.func) if isinstance(v, ast.Call)}
    return any(name is not None and name not in LOG_PROB_LOSSES for name in names)


def _logits_name(arg: ast.expr, ctx: ModuleContext) -> str | None:
    """The name of the tensor handed over, as written or as last assigned, when it says logits and the file shows no
    log_softmax on it (STARS's `F.ctc_loss(ph_frame_logits.permute(1, 0, 2), ...)`, whose frames come from the
    model's output dict; `out["logits"]`), also scaled by a
    temperature (train-CLIP's `F.kl_div(image_logits_notemp * self.sink_temp, ...)`, blind split 26)."""
    for core in (strip_calls(arg, LAYOUT_METHODS), strip_shape_ops(arg, ctx)):
        for scaled in _unscaled(core):
            name = held_name(strip_calls(scaled, LAYOUT_METHODS))
            lowered = name.lower()
            if "logit" in lowered and not any(w in lowered for w in ("log_prob", "logprob", "lprob")):
                return name
    return None


def _unscaled(expr: ast.AST) -> list[ast.AST]:
    """What a product or quotient scales (`logits / T`, `scale * logits`): either factor of a product, the
    dividend of a quotient; the expression itself when it is neither. A scale does not make logits log-probabilities."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return _unscaled(expr.left)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _unscaled(expr.left) + _unscaled(expr.right)
    return [expr]
