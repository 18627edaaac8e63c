import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.patterns import log_argument
from ..rule import Hit, Rule

LOGS = {"torch.log", "torch.log2", "torch.log10"}
CLAMPS = {"clamp", "clamp_min", "clip", "maximum", "fmax", "max"}


class LogWithoutClamp(Rule):
    """What it does: flags `torch.log(...)` / `.log()` of a quantity visibly able to reach zero:
    a normalised ratio (`x / x.sum(...)`, a hand-made softmax) or one minus a probability
    (`torch.log(1 - p)`, as in a hand-written binary cross-entropy), with no clamp and no `+ eps`.
    Logs of plain names whose value is unknown, of constants, and `torch.log1p` are not flagged.

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
        if argument is None:
            return
        what = _unsafe(argument, ctx)
        if what:
            yield Hit(node, self.message.format(what=what))


def _unsafe(expr: ast.expr, ctx: ModuleContext) -> str | None:
    value = ctx.resolve(expr) if isinstance(expr, ast.Name | ast.Attribute) else expr
    if not isinstance(value, ast.BinOp):
        return None  # a clamp, `p + eps`, a call or an unknown name: nothing visible
    if isinstance(value.op, ast.Sub) and _is_one(value.left) and _may_reach_one(value.right, ctx):
        return "1 - p"
    if isinstance(value.op, ast.Div) and not _guarded(value.left, ctx):
        if _is_sum(value.right, ctx):
            return "a normalised ratio"
        if any(isinstance(side, ast.BinOp) and _unsafe(side, ctx) for side in (value.left, value.right)):
            return "a ratio involving 1 - p"
    return None


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
