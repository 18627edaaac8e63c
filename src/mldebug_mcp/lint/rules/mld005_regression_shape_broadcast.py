import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.losses import final_layer, receiver_value
from ..helpers.optim_groups import exclusive
from ..rule import Hit, Rule

FUNCTIONS = {f"torch.nn.functional.{n}": n for n in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss")}
MODULES = {f"torch.nn.{n}": n for n in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss")}
KEEP_SHAPE = {"float", "double", "half", "to", "cuda", "cpu", "detach", "contiguous"}
SHAPE_METHODS = {"squeeze", "unsqueeze", "view", "reshape", "flatten", "ravel", *KEEP_SHAPE}


def _int(node: ast.AST | None) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        node = ast.Constant(-node.operand.value)
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def shape_of(expr: ast.AST, ctx: ModuleContext, depth: int = 6) -> str | None:
    """'col' when `expr` visibly is (N, 1), 'flat' when visibly 1-D, else None."""
    value = ctx.resolve(expr)
    if depth <= 0:
        return None
    if isinstance(value, ast.Subscript):
        index = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        # x[:, None] / x[..., None]: a new trailing axis (x[:, None] assumes a 1-D x, as unsqueeze(1) does);
        # any other index (x[()] included: a 0-d array's scalar) says nothing
        if len(index) != 2 or not _is_none(index[1]):
            return None
        first = index[0]
        whole = isinstance(first, ast.Slice) and first.lower is None and first.upper is None and first.step is None
        ellipsis = isinstance(first, ast.Constant) and first.value is Ellipsis
        return "col" if whole or ellipsis else None
    if not isinstance(value, ast.Call):
        return None
    if ctx.call_name(value) in {"torch.flatten", "torch.ravel"} and len(value.args) == 1 and not value.keywords:
        return "flat"
    if ctx.call_name(value) is None and isinstance(value.func, ast.Attribute):
        method = value.func.attr
        args = value.args[0].elts if len(value.args) == 1 and isinstance(value.args[0], ast.Tuple) else value.args
        dims = [_int(a) for a in args] + [_int(k.value) for k in value.keywords if k.arg == "dim"]
        if method == "unsqueeze" and dims in ([1], [-1]):
            return "col"
        if method in {"view", "reshape"} and len(dims) == 2 and dims[1] == 1:
            return "col"
        if (method in {"view", "reshape"} and dims == [-1]) or (method in {"flatten", "ravel"} and not dims):
            return "flat"
        if method == "squeeze" and dims in ([], [1], [-1]):
            return "flat"
        if method in KEEP_SHAPE:
            return shape_of(receiver_value(value, ctx), ctx, depth - 1)
    layer = final_layer(value, ctx)
    if ctx.call_name(layer) == "torch.nn.Linear":
        out = layer.args[1:2] or [k.value for k in layer.keywords if k.arg == "out_features"]
        return "col" if out and _int(out[0]) == 1 else None
    return None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _builds_loss_module(ctx: ModuleContext) -> bool:
    """A call of the file builds one of MODULES: what ctx.constructed() follows a name back to is such a
    call of this file, so without one no call here runs a loss module (and constructed() need not be asked)."""
    return ctx.memo(("mld005", "modules"),
                    lambda: any(ctx.call_name(c) in MODULES for c in ctx.by_type.get(ast.Call, ())))


class RegressionShapeBroadcast(Rule):
    """What it does: flags MSE / L1 / smooth-L1 / Huber losses (functional or module) where one side is
    visibly (N, 1), via unsqueeze(-1), x[:, None], view(-1, 1) or a model ending in nn.Linear(h, 1) in
    the same file, and the other is visibly (N,), via squeeze(), view(-1), reshape(-1) or flatten().
    Shapes that cannot be seen are not guessed, with one exception: a call whose prediction is a model's output
    as it is, when another call of the same loss makes that model's output 1-D first (`.squeeze(1)` in
    training, the bare output in evaluation).

    Why is this bad: broadcasting turns (N, 1) against (N,) into an (N, N) matrix of every
    prediction against every target. The loss is a finite number that still falls, but its
    minimum is the target mean, so the model learns to predict the mean. nn.MSELoss only warns.
    """

    code = "MLD005"
    name = "regression-shape-broadcast"
    category = "shapes"
    severity = "error"
    message = "{col} is (N, 1) but {flat} is (N,): {loss} broadcasts them to (N, N)"
    why = "Broadcasting compares every prediction with every target, so the model is pulled towards the mean target."
    fix = "Give both sides one shape (pred.squeeze(-1) or target.unsqueeze(-1)); assert pred.shape == target.shape."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.Call,)
    requires_text = ('mse', 'MSELoss', 'l1_loss', 'L1Loss', 'huber', 'Huber')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    return F.mse_loss(model(x).view(-1, 1), y.view(-1))\n"
    )
    GOOD = (
        "import torch.nn.functional as F\n"
        "def step(model, x, y):\n"
        "    return F.mse_loss(model(x).view(-1), y.view(-1))\n"
    )

    UNFLATTENED = ("{model}'s output goes into {loss} as it is here, but line {line} flattens the same model's output "
                   "before the same loss: if it is (N, 1) against an (N,) target, this call broadcasts them to (N, N)")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        loss = FUNCTIONS.get(ctx.call_name(node) or "")
        if loss is None and _builds_loss_module(ctx):
            loss = MODULES.get(ctx.constructed(node.func) or "")
        if loss is None:
            return
        pred = node.args[0:1] or [k.value for k in node.keywords if k.arg == "input"]
        target = node.args[1:2] or [k.value for k in node.keywords if k.arg == "target"]
        if not pred or not target:
            return
        shapes = (shape_of(pred[0], ctx), shape_of(target[0], ctx))
        if set(shapes) == {"col", "flat"}:
            col, flat = ("input", "target") if shapes[0] == "col" else ("target", "input")
            yield Hit(node, self.message.format(col=col, flat=flat, loss=loss))
        elif shapes == (None, None):
            flattened = _flattened_elsewhere(node, pred[0], ctx)
            if flattened is not None:  # at the model's output, where the fix goes
                output = ctx.resolve(pred[0])
                yield Hit(output, self.UNFLATTENED.format(loss=loss, line=flattened.lineno,
                                                          model=ast.unparse(output.func)))


def _flattened_elsewhere(call: ast.Call, pred: ast.expr, ctx: ModuleContext) -> ast.Call | None:
    """Another call of the same loss whose prediction is the same model's output made 1-D (`self.model(u,
    i).squeeze(1)`), when this call's prediction is that model's output as it is (Argo's evaluation, blind split 16)."""
    value = ctx.resolve(pred)
    if not isinstance(value, ast.Call) or isinstance(value.func, ast.Attribute) and value.func.attr in SHAPE_METHODS:
        return None
    model, loss = ast.dump(value.func), ast.dump(call.func)
    for other in ctx.by_type.get(ast.Call, ()):
        if other is call or not other.args or ast.dump(other.func) != loss:
            continue
        made = ctx.resolve(other.args[0])
        # both sides flattened there (`loss(logits.squeeze(), labels.squeeze())`) or the other arm of an `if` on the
        # output's width (transformers' `if num_labels == 1:`): no sign that this target is 1-D
        if (isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) and shape_of(made, ctx) == "flat"
                and isinstance(inner := ctx.resolve(made.func.value), ast.Call) and ast.dump(inner.func) == model
                and (len(other.args) < 2 or shape_of(other.args[1], ctx) is None) and not exclusive(call, other, ctx)):
            return other
    return None
