import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.graph import latest_value
from ..helpers.kinds import handed_kinds, parameter_root, traced_kind, traced_kind_any
from ..helpers.patterns import log_argument
from ..helpers.logs_without_gradient import log_without_gradient
from ..helpers.magnitudes import spectrum_magnitude
from ..helpers.probs_argmax import picked_at_argmax
from ..helpers.probs_cross_entropy import hand_written_cross_entropy
from ..helpers.probs_methods import class_probabilities_logged
from ..helpers.probs_outside_loss import positive_literal, writes_parameter
from ..helpers.probs_policy import sampled_network_probabilities
from ..helpers.reference_tests import reference_test_module
from ..helpers.tensors_flow import (
    computes_loss,
    from_prediction,
    masked_probability,
    shared_probability,
)
from ..rule import Hit, Rule

LOGS = {"torch.log", "torch.log2", "torch.log10"}
NUMPY_LOGS = {"numpy.log", "numpy.log2", "numpy.log10"}
CLAMPS = {"clamp", "clamp_min", "clip", "maximum", "fmax", "max"}
# positive by construction, yet they round to exactly 0 in float32 (softplus(-104), exp(-104))
UNDERFLOWING = {"torch.nn.functional.softplus": "a softplus output", "torch.exp": "an exp output",
                "torch.special.exp": "an exp output", "torch.nn.Softplus": "a softplus output"}
MASKS = {"masked_fill", "masked_fill_", "nan_to_num", "nan_to_num_"}
TARGET_WORDS = re.compile(r"target|label|prior|gt$|^y$|truth")
NLL = {"torch.nn.functional.nll_loss", "torch.nn.NLLLoss"}


class LogWithoutClamp(Rule):
    """What it does: flags `torch.log(...)` / `.log()` of a quantity visibly able to reach zero:
    a normalised ratio (`x / x.sum(...)`, a hand-made softmax), one minus a probability
    (`torch.log(1 - p)`, as in a hand-written binary cross-entropy), a softplus or exp output
    (`std = F.softplus(x + 1e-5)` then `std.log()`: the eps inside does not stop the underflow),
    probabilities handed to an NLL loss (`F.nll_loss(torch.log(probs), y)`, or a log taken
    under `if isinstance(criterion, nn.NLLLoss)`), in a loss, the prediction it is given (summed,
    averaged or reshaped: `torch.log(torch.sum(input, 1) / T)`), a sigmoid/softmax probability held
    in a variable the loss also uses for other terms (`p = torch.sigmoid(x)`, then `torch.log(p)` and
    `(1 - p) ** gamma`), or a probability masked or picked to a part (`probs * one_hot`,
    `torch.where(y == 1, p, 1 - p)`, `probs.gather(1, y)`, a top-k or sorted probability), or a
    log-probability method's parameter in a class whose other method returns probabilities (a
    predictive distribution), a confidence a loss weighs its terms by and logs as a penalty
    (`err * c - w * torch.log(c)`), probabilities on one branch only (`if n > 1: out = F.softmax(out, 1)`,
    then `out.log()` in the loss the callers hand it to), or a log fed to a criterion whose one branch is
    NLLLoss, or the probabilities a hand-written cross-entropy is given (`-(soft_targets *
    torch.log(probs)).sum(1).mean()` in a function or class named for a loss), or a spectrum's magnitude
    (`np.log(np.abs(librosa.stft(y)))`, zero in silence), with no clamp and no `+ eps`.
    Logs of plain names whose value is unknown, of constants, and `torch.log1p` are not flagged, nor
    a log written into a parameter's storage (a bias initialised from class frequencies), a ratio of
    literal positive numbers, or a log in a test module that steps no optimiser (a reference value).
    Nor a softmax probability picked at its argmax (`softmax(z)[z.max(1)[1]]`: at least 1/V), a log that only
    ranks in a search that runs no backward and computes no loss (`probs.log()`, then `log_probs.topk(beam)` in
    a beam search or under no_grad), or a log turned into a number at once for display (`p[i].log().item()`),
    unless what is computed from it is multiplied, summed or averaged, or handed to a loss.
    A softplus output's log keeps firing: `F.softplus(z)` is exactly 0 for z below about -100, as in the
    Gaussian likelihood whose std a maintainer fixed (`std = F.softplus(x + 1e-5)`, then `std.log()`).

    Why is this bad: a probability of exactly 0 (an empty count, an underflowed exponent, a
    sigmoid that rounded to 1.0) gives log(0) = -inf, then NaN in the loss and every gradient.
    It happens only on some batches, late in training, with no error at this line.
    """

    code = "MLD061"
    name = "log-without-clamp"
    category = "numerics"
    severity = "warning"
    message = "log of {what} with no clamp or eps: a zero gives -inf and NaN gradients"
    why = "The argument can be exactly 0 on some batch; log(0) = -inf turns the loss and gradients into NaN."
    fix = "Work from logits (F.log_softmax, F.logsigmoid, BCEWithLogitsLoss), or use torch.log(p + eps)."
    evidence = "fsdl"
    node_types = (ast.Call,)
    call_names = frozenset({"log", "log2", "log10"})  # torch.log*(x), x.log*()
    requires_text = ('log',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def bce(p, y):\n"
        "    return -(y * torch.log(p + 1e-8) + (1 - y) * torch.log(1 - p)).mean()\n"
    )
    GOOD = (
        "import torch\n"
        "EPS = 1e-8\n"
        "def bce(p, y):\n"
        "    return -(y * torch.log(p + EPS) + (1 - y) * torch.log(1 - p + EPS)).mean()\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        argument = log_argument(node, ctx, LOGS, {"log", "log2", "log10"})
        numpy = argument is None  # np.log: only a spectrum's magnitude is read here
        if numpy:
            argument = log_argument(node, ctx, NUMPY_LOGS, set())
        if argument is not None and spectrum_magnitude(argument, ctx):
            yield Hit(node, self.message.format(what="a spectrum's magnitude"))
            return
        if numpy or reference_test_module(ctx) or writes_parameter(node, ctx):
            return  # a test's reference value, or a bias initialised from a log: no gradient reads it
        what = _unsafe(argument, ctx) or _underflowing(argument, ctx) or _probabilities_for_nll(node, argument, ctx) \
            or _prediction_in_loss(argument, ctx) or _probability(node, argument, ctx) \
            or _class_probability(node, argument, ctx) or _weighting_confidence(node, argument, ctx) \
            or _branch_probability(argument, ctx) or _sampled_probability(argument, ctx) \
            or _cross_entropy_by_hand(node, argument, ctx)
        if what and not log_without_gradient(node, ctx):
            yield Hit(node, self.message.format(what=what))


def _unsafe(expr: ast.expr, ctx: ModuleContext) -> str | None:
    value = ctx.resolve(expr) if isinstance(expr, ast.Name | ast.Attribute) else expr
    if not isinstance(value, ast.BinOp):
        return None  # a clamp, `p + eps`, a call or an unknown name: nothing visible
    if isinstance(value.op, ast.Sub) and _is_one(value.left) and _may_reach_one(value.right, ctx):
        return "1 - p"
    if isinstance(value.op, ast.Div) and not _guarded(value.left, ctx):
        # x / x.sum(): a hand-made softmax (log_softmax is the drop-in fix) or a ratio of counts; an exp output
        # over the sum of another tensor (InfoNCE's positive over its negatives) reaches 0 only past a logit
        # gap of ~100, while counts or ReLU outputs reach it on any zero entry
        if _is_sum(value.right, ctx) and not (_exp_output(value.left, ctx) and not _sums_itself(value, ctx)) \
                and not positive_literal(value.left, ctx):
            return "a normalised ratio"
        if any(isinstance(side, ast.BinOp) and _unsafe(side, ctx) for side in (value.left, value.right)):
            return "a ratio involving 1 - p"
    return None


def _probability(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> str | None:
    """A sigmoid/softmax probability kept in a name and used for other terms too (a focal weight),
    or a probability masked or picked to a part (`probs * one_hot`, `torch.where(y, p, 1 - p)`)."""
    if shared_probability(log, argument, ctx):
        return "a probability"
    # the value read, not one assigned on the log's own line (`p = torch.log(p)`)
    value = latest_value(argument, ctx) if isinstance(argument, ast.Name) else None
    if value is None:
        value = ctx.resolve(argument)
    if not _guarded(value, ctx) and masked_probability(value, ctx) and not picked_at_argmax(value, ctx):
        return "a masked or picked probability"
    return None


def _class_probability(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> str | None:
    """A log-probability method's parameter, in a class whose other method returns probabilities."""
    producer = class_probabilities_logged(log, argument, ctx)
    return f"the probabilities {producer}() returns, handed to a log-probability method" if producer else None


def _underflowing(expr: ast.expr, ctx: ModuleContext) -> str | None:
    """`F.softplus(z)` / `torch.exp(z)` / `nn.Softplus()(z)`, directly or through the name holding it."""
    value = ctx.resolve(expr) if isinstance(expr, ast.Name | ast.Attribute) else expr
    if not isinstance(value, ast.Call):
        return None
    name = ctx.call_name(value)
    if name is None and ctx.method_name(value) == "exp" and not value.args:
        return "an exp output"
    if name is None and ctx.method_name(value) == "softplus" and value.args:
        return "a softplus output"  # F.softplus with F from a star import (tensors have no .softplus method)
    return UNDERFLOWING.get(name or "") or UNDERFLOWING.get(ctx.constructed(value.func) or "")


def _probabilities_for_nll(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> str | None:
    """The log's result is an NLL loss's input, so its argument is meant to be probabilities: a bare
    value (a parameter, a model's output) whose zeros nothing guards."""
    if not isinstance(argument, ast.Name | ast.Attribute | ast.Subscript | ast.Call) or _guarded(argument, ctx):
        return None
    if isinstance(argument, ast.Call) and ctx.call_name(argument) is not None:
        return None  # torch.log(torch.tensor(2.0)), torch.log(probs.clamp(...)) and other known functions
    if _under_nll_check(log, ctx) or _nll_input(log, ctx):
        return "probabilities fed to NLLLoss"
    return None


def _prediction_in_loss(argument: ast.expr, ctx: ModuleContext) -> str | None:
    """`torch.log(input)` in a loss (`get_loss`, a criterion's forward) where `input` is the prediction it was
    given, summed, averaged or reshaped: probabilities or a variance, with nothing keeping them off zero."""
    func = ctx.enclosing(argument, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    if func is None or not computes_loss(func, ctx):
        return None
    if from_prediction(argument, func, ctx, latest_value):
        return "the prediction a loss is given"
    return "the target distribution a loss is given" if _target_parameter(argument, func, ctx) else None


def _branch_probability(argument: ast.expr, ctx: ModuleContext) -> str | None:
    """A name that holds softmax/sigmoid probabilities on one branch only (`if self.nsamples > 1: out =
    F.softmax(out, 1)`), here or in what the callers hand a parameter: the all-branch kinds cannot tell, and a
    value that agrees on the probabilities is the log-of-softmax rule's (MLD060)."""
    if not isinstance(argument, ast.Name) or _guarded(argument, ctx):
        return None
    found = [traced_kind_any(argument, ctx)]
    root = parameter_root(argument, ctx) if found[0] is None else None
    if root is not None:
        found = [kind for _, kind in handed_kinds(root, ctx, lenient=True)]
    kinds = [f for f in found if f is not None and f.kind in {"softmax", "sigmoid"}]
    if not kinds or traced_kind(argument, ctx) is not None:
        return None
    if root is not None and any(k is not None for _, k in handed_kinds(root, ctx)):
        return None  # the callers agree on a kind: judged elsewhere
    line = f" (line {kinds[0].origins[0].lineno})" if kinds[0].origins else ""
    return f"a {kinds[0].kind} output on one branch{line}"


def _cross_entropy_by_hand(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> str | None:
    """`-(soft_targets * torch.log(probs)).sum(1).mean()` in a loss (helpers/probs_cross_entropy)."""
    if hand_written_cross_entropy(log, argument, ctx):
        return "the probabilities a hand-written cross-entropy is given"
    return None


def _sampled_probability(argument: ast.expr, ctx: ModuleContext) -> str | None:
    """A network's output the function also samples a categorical distribution from (a softmax actor)."""
    if _guarded(argument, ctx) or not sampled_network_probabilities(argument, ctx):
        return None
    return "a network's output sampled from as probabilities"


def _weighting_confidence(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> str | None:
    """`(err * conf - w * torch.log(conf)).mean()` in a loss: a parameter that weighs the loss's other terms
    and is logged as a penalty (a learned confidence in [0, 1]); minimising the weighted term drives it to 0."""
    if not isinstance(argument, ast.Name) or latest_value(argument, ctx) is not None:
        return None  # reassigned in the loss: perhaps floored (`conf = conf.clamp(min=eps)`)
    func = ctx.enclosing(argument, (ast.FunctionDef, ast.AsyncFunctionDef))
    if func is None or argument.id not in [a.arg for a in func.args.posonlyargs + func.args.args] \
            or not computes_loss(func, ctx):
        return None
    if TARGET_WORDS.search(argument.id.lower()) or _floored_in_place(argument.id, func, ctx) or _masked_later(func, ctx):
        return None  # a label-side weight is judged by _target_parameter
    # `conf * log(conf)` (an entropy term) is judged by the other checks: the product must be apart from the log
    apart = {id(n) for n in ast.walk(log)} | {id(n) for n in ctx.ancestors(log)}
    for product in ctx.in_scope(func, (ast.BinOp,)):
        if isinstance(product.op, ast.Mult) and id(product) not in apart and any(
                isinstance(side, ast.Name) and side.id == argument.id for side in (product.left, product.right)):
            return "a confidence the loss also weighs its terms by"
    return None


def _target_parameter(argument: ast.expr, func: ast.AST, ctx: ModuleContext) -> bool:
    """`torch.log(target)` in a loss where `target` is its label-side input as given (a prior, a soft or one-hot
    label): label probabilities hold exact zeros, and `target * log(target)` turns them into 0 * -inf = NaN."""
    if not isinstance(argument, ast.Name) or not TARGET_WORDS.search(argument.id.lower()):
        return False
    params = [a.arg for a in func.args.posonlyargs + func.args.args if a.arg not in {"self", "cls"}]
    if argument.id not in params[1:] or ctx.values_of(argument, at=argument):
        return False  # the prediction is judged above; a name reassigned in the loss may be floored
    calls = ctx.in_scope(func, (ast.Call,))
    logged = {a.id for c in calls for a in c.args[:1] + [getattr(c.func, "value", None)]
              if isinstance(a, ast.Name) and (ctx.call_name(c) in LOGS or ctx.method_name(c) == "log")}
    if params[0] in logged:
        return False  # both sides logged: a regression in log space (magnitudes), not a distribution
    if _masked_later(func, ctx):
        return False  # the zero entries' terms are masked out afterwards (`term.masked_fill(target <= 1, 0)`)
    return not _floored_in_place(argument.id, func, ctx)


def _masked_later(func: ast.AST, ctx: ModuleContext) -> bool:
    return any(ctx.method_name(c) in MASKS or ctx.call_name(c) in {"torch.where", "torch.nan_to_num"}
               for c in ctx.in_scope(func, (ast.Call,)))


def _floored_in_place(name: str, func: ast.AST, ctx: ModuleContext) -> bool:
    """`target.clamp_(min=eps)`, `p.add_(eps)` somewhere in the function."""
    floors = CLAMPS | {"clamp_", "clamp_min_", "clip_", "add_"}
    return any(ctx.method_name(c) in floors and isinstance(c.func.value, ast.Name) and c.func.value.id == name
               for c in ctx.in_scope(func, (ast.Call,)))


def _under_nll_check(node: ast.AST, ctx: ModuleContext) -> bool:
    """Inside `if isinstance(criterion, nn.NLLLoss):` (the log is the input that loss expects)."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.If):
            test = anc.test
            if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
                    and len(test.args) == 2 and ctx.qualname(test.args[1]) in NLL:
                return True
        elif isinstance(anc, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
    return False


def _nll_input(log: ast.Call, ctx: ModuleContext) -> bool:
    """`F.nll_loss(torch.log(p), y)`, `nll(logp, y)` with `logp = torch.log(p)` one assignment back."""
    parent = ctx.parent(log)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        target = parent.targets[0].id
        scope = ctx.scope_of(log)
        for call in ctx.in_scope(scope, (ast.Call,)):
            first = call.args[0] if call.args else None
            if isinstance(first, ast.Name) and first.id == target and first.lineno > log.lineno \
                    and _is_nll(call, ctx) and ctx.resolve(first) is log:
                return True
        return False
    return isinstance(parent, ast.Call) and bool(parent.args) and parent.args[0] is log and _is_nll(parent, ctx)


def _is_nll(call: ast.Call, ctx: ModuleContext) -> bool:
    if ctx.call_name(call) in NLL or ctx.constructed(call.func) in NLL:
        return True
    # a criterion chosen by a branch (`self.loss = nn.BCELoss()` if multi-label, else `nn.NLLLoss()`): the log
    # taken for the NLL branch must be of probabilities floored off zero
    values = ctx.values_of(call.func) if isinstance(call.func, ast.Name | ast.Attribute) else []
    built = [b for v in values for b in ((v.body, v.orelse) if isinstance(v, ast.IfExp) else (v,))]
    return any(isinstance(b, ast.Call) and ctx.call_name(b) in NLL for b in built)


def _is_one(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and not isinstance(expr.value, bool) and expr.value == 1


def _may_reach_one(expr: ast.expr, ctx: ModuleContext) -> bool:
    """In `1 - x`: x is a probability, or an unknown input (a hand-written BCE's `p`)."""
    base = expr.value if isinstance(expr, ast.Subscript) else expr
    if ctx.activation_of(base) in {"sigmoid", "softmax"}:
        return True
    value = ctx.resolve(base) if isinstance(base, ast.Name | ast.Attribute) else base
    if isinstance(value, ast.Name):
        return True  # an input such as a hand-written BCE's `p`; unknown attributes stay quiet
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return _is_sum(value.right, ctx)
    # a schedule such as torch.cumprod(alphas) or any other call stays quiet: precision first
    return isinstance(value, ast.Call) and (ctx.call_name(value) == "torch.exp" or ctx.method_name(value) == "exp")


RESHAPES = {"view", "reshape", "masked_select", "squeeze", "unsqueeze", "flatten", "contiguous", "t", "float"}


def _exp_output(expr: ast.expr, ctx: ModuleContext, depth: int = 4) -> bool:
    """`torch.exp(z)`, `z.exp()`, through names, reshapes and `torch.cat([...])` of such outputs."""
    if depth <= 0:
        return False
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        return value is not None and _exp_output(value, ctx, depth - 1)
    if not isinstance(expr, ast.Call):
        return False
    name, method = ctx.call_name(expr), ctx.method_name(expr)
    if name in {"torch.exp", "torch.special.exp"} or name is None and method == "exp" and not expr.args:
        return True
    if name in {"torch.cat", "torch.stack"} and expr.args and isinstance(expr.args[0], ast.List | ast.Tuple):
        return bool(expr.args[0].elts) and all(_exp_output(e, ctx, depth - 1) for e in expr.args[0].elts)
    return name is None and method in RESHAPES and isinstance(expr.func, ast.Attribute) \
        and _exp_output(expr.func.value, ctx, depth - 1)


def _sums_itself(ratio: ast.BinOp, ctx: ModuleContext) -> bool:
    """`e / e.sum(...)`, `e / torch.sum(e, ...)`: the numerator is what the denominator sums."""
    total = ratio.right
    summed = total.func.value if ctx.call_name(total) is None else (total.args[0] if total.args else None)
    return summed is not None and ast.unparse(summed) == ast.unparse(ratio.left)


def _is_sum(expr: ast.expr, ctx: ModuleContext) -> bool:
    return isinstance(expr, ast.Call) and (ctx.call_name(expr) == "torch.sum" or
                                           (ctx.call_name(expr) is None and ctx.method_name(expr) == "sum"))


def _guarded(expr: ast.expr, ctx: ModuleContext) -> bool:
    """`x + eps`, `x + 1e-8`, `x.clamp(min=...)`, `torch.clamp(x, min=...)`."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return any(_is_eps(side) for side in (expr.left, expr.right))
    if isinstance(expr, ast.Call):
        method = ctx.method_name(expr) or ""
        return method in CLAMPS or (ctx.call_name(expr) or "").rsplit(".", 1)[-1] in CLAMPS
    return False


def _is_eps(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int | float) and not isinstance(expr.value, bool) and expr.value > 0
    name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""
    return "eps" in name.lower()
