"""Two hidden ways probabilities reach a loss that normalises its input itself (MLD001):

- `torch.log(p)` of probabilities, or of a mixture of them (`softmax(z) @ T`, a forward-corrected loss), handed
  to a cross-entropy, which takes log_softmax again: harmless on log-probabilities (they sum to one) until a
  probability underflows to 0 and the loss turns inf, a hazard that log_softmax or nll_loss avoids;
- a layer built with a softmax/sigmoid output activation (`GraphConv(h, c, activation=F.softmax)`, also
  `partial(F.softmax, dim=1)`, `nn.Softmax(1)`, a lambda, or the string 'softmax') in the model whose output the
  loss takes. Such keyword activations are how graph and segmentation libraries build their last layer."""

import ast

from ..context import ModuleContext
from .kinds import PROBABILITIES, SIGMOID, SOFTMAX, kind_of, reaching_values
from .kinds.vocabulary import FUNCTIONS, KEEP_METHODS, MODULES, TENSOR_METHODS
from .optim_untrained import strip_moves
from .patterns import log_argument

LOGS = frozenset({"torch.log", "torch.log2", "torch.log10"})
LOG_METHODS = frozenset({"log"})
# what mixes or reduces probabilities and still holds them (a noise transition matrix, a sum of weighted parts)
MIXING_CALLS = frozenset({"torch.matmul", "torch.mm", "torch.bmm", "torch.einsum", "torch.sum", "torch.mean",
                          "torch.clamp", "torch.clip", "torch.gather", "torch.where"})
MIXING_METHODS = frozenset({"matmul", "mm", "bmm", "sum", "mean", "repeat", "expand", "expand_as", "gather",
                            "clamp", "clamp_min", "clip", "__matmul__"}) | KEEP_METHODS
MIXING_OPS = (ast.MatMult, ast.Mult, ast.Add, ast.Div)
# keywords through which a layer is given its output activation
ACTIVATION_KEYWORDS = frozenset({"activation", "act", "activation_fn", "act_fn", "final_activation",
                                 "output_activation", "out_activation", "last_activation", "final_act"})
ACTIVATION_STRINGS = {"softmax": SOFTMAX, "softmax2d": SOFTMAX, "sigmoid": SIGMOID}
PARTIALS = frozenset({"functools.partial", "partial"})
DEPTH = 6


def logged_probabilities(arg: ast.expr, ctx: ModuleContext) -> list[ast.Call]:
    """The log calls whose output `arg` is (through names and one local function's returns) when what they log
    is made of probabilities (`torch.log(F.softmax(z, 1) @ T)`), else []."""
    found: list[ast.Call] = []
    for log in _logs(arg, ctx, DEPTH):
        inner = log_argument(log, ctx, LOGS, LOG_METHODS)
        if inner is not None and _holds_probabilities(inner, ctx, DEPTH) and log not in found:
            found.append(log)
    return found


def _logs(expr: ast.AST, ctx: ModuleContext, depth: int) -> list[ast.Call]:
    if depth <= 0:
        return []
    if isinstance(expr, ast.Subscript):
        return _logs(expr.value, ctx, depth - 1)
    if isinstance(expr, ast.Name):
        reaching = reaching_values(expr, ctx)[1] or []
        return [log for value, element in reaching if element is None for log in _logs(value, ctx, depth - 1)]
    if not isinstance(expr, ast.Call):
        return []
    if log_argument(expr, ctx, LOGS, LOG_METHODS) is not None:
        return [expr]
    if ctx.call_name(expr) is None and isinstance(expr.func, ast.Attribute) and expr.func.attr in KEEP_METHODS:
        return _logs(expr.func.value, ctx, depth - 1)
    func = ctx.functions.get(expr.func.id) if isinstance(expr.func, ast.Name) else None
    if func is not None:  # a helper returning the logged mixture
        returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
        return [log for value in returns for log in _logs(value, ctx, depth - 1)]
    return []


def _holds_probabilities(expr: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    """Whether `expr` is softmax probabilities, or made of them by mixing, summing, reshaping or flooring."""
    if depth <= 0 or expr is None:
        return False
    if isinstance(expr, ast.Name):
        reaching = reaching_values(expr, ctx)[1] or []
        return any(element is None and _holds_probabilities(v, ctx, depth - 1) for v, element in reaching)
    if isinstance(expr, ast.Subscript):
        return _holds_probabilities(expr.value, ctx, depth - 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, MIXING_OPS):
        sides = (expr.left,) if isinstance(expr.op, ast.Div) else (expr.left, expr.right)
        return any(_holds_probabilities(s, ctx, depth - 1) for s in sides)
    if not isinstance(expr, ast.Call):
        return False
    if kind_of(expr, ctx) == SOFTMAX:
        return True
    name = ctx.call_name(expr)
    if name in MIXING_CALLS:
        return any(_holds_probabilities(a, ctx, depth - 1) for a in expr.args if not isinstance(a, ast.Starred))
    if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr in MIXING_METHODS:
        return _holds_probabilities(expr.func.value, ctx, depth - 1)
    return False


def activation_keyword(call: ast.Call, ctx: ModuleContext) -> tuple[str, ast.expr] | None:
    """(kind, value) when a layer of a library (not torch.nn's own) is built with an output activation of
    softmax or sigmoid: `activation=F.softmax`, `partial(F.softmax, dim=1)`, `nn.Softmax(1)`, a lambda, 'softmax'."""
    for keyword in call.keywords:
        if keyword.arg in ACTIVATION_KEYWORDS:
            kind = _function_kind(keyword.value, ctx)
            if kind in PROBABILITIES:
                return kind, keyword.value
    return None


def _function_kind(value: ast.expr, ctx: ModuleContext) -> str | None:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return ACTIVATION_STRINGS.get(value.value.lower())
    if isinstance(value, ast.Lambda):
        body = value.body
        if isinstance(body, ast.Call):
            name = ctx.call_name(body)
            if name in FUNCTIONS:
                return FUNCTIONS[name]
            method = body.func.attr if name is None and isinstance(body.func, ast.Attribute) else None
            return TENSOR_METHODS.get(method or "")
        return None
    if isinstance(value, ast.Call):
        name = ctx.call_name(value)
        if name in PARTIALS and value.args:  # partial(F.softmax, dim=1)
            return _function_kind(value.args[0], ctx)
        return MODULES.get(name or "")  # nn.Softmax(dim=1)
    return FUNCTIONS.get(ctx.qualname(value) or "")


def class_activation_layers(cls: ast.ClassDef, ctx: ModuleContext) -> list[tuple[str, ast.expr]]:
    """The output activations given to layers built in a model class of this file (or its bases here)."""
    def compute() -> list[tuple[str, ast.expr]]:
        found = []
        for owner in _with_bases(cls, ctx):
            for node in ctx.within(ast.Call, owner):  # its calls by line, from the module's list: no walk
                if node.keywords and not (ctx.call_name(node) or "").startswith("torch."):
                    given = activation_keyword(node, ctx)
                    if given is not None:
                        found.append(given)
        return found

    return ctx.memo(("losses-logged", "layers", cls.name), compute)


def _with_bases(cls: ast.ClassDef, ctx: ModuleContext) -> list[ast.ClassDef]:
    found, todo = [], [cls]
    while todo and len(found) < 8:
        current = todo.pop()
        if current in found:
            continue
        found.append(current)
        todo.extend(ctx.classes[b.id] for b in current.bases if isinstance(b, ast.Name) and b.id in ctx.classes)
    return found


def model_activations(arg: ast.expr, ctx: ModuleContext) -> tuple[str, list[tuple[str, ast.expr]]]:
    """(model, its layers' output activations) for the model whose output `arg` is: a class of this file
    (`model(x)` with `model = Net(...)`, `self(x)`), or a library model built here with one
    (`smp.Unet(..., activation="sigmoid")`)."""
    value = arg
    for _ in range(DEPTH):
        if isinstance(value, ast.Subscript):
            value = value.value
        elif isinstance(value, ast.Name):
            reaching = reaching_values(value, ctx)[1] or []
            if len(reaching) != 1 or reaching[0][1] is not None:
                return "", []
            value = reaching[0][0]
        elif isinstance(value, ast.Call):
            callee = value.func
            if isinstance(callee, ast.Attribute) and ctx.call_name(value) is None:
                if callee.attr in KEEP_METHODS:
                    value = callee.value
                    continue
                if callee.attr != "forward":
                    return "", []
                callee = callee.value
            if isinstance(callee, ast.Name) and callee.id == "self":
                cls = ctx.enclosing_class(callee)
                return (cls.name, class_activation_layers(cls, ctx)) if cls is not None else ("", [])
            built = ctx.constructed(callee)
            if built in ctx.classes:
                return built, class_activation_layers(ctx.classes[built], ctx)
            construction = strip_moves(ctx.resolve(callee))  # create_model(..., activation=...).to(device)
            if built and not built.startswith("torch.") and isinstance(construction, ast.Call):
                given = activation_keyword(construction, ctx)
                return built.rsplit(".", 1)[-1], [given] if given is not None else []
            return "", []
        else:
            return "", []
    return "", []
