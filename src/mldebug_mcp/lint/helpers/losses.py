"""What flows into a loss: the value behind a call's receiver, the final layer of a model, and whether an
output is already a probability (MLD002-MLD005)."""

import ast

from ..context import ModuleContext
from . import kinds

# methods that change a tensor's shape or device but not what its values mean
SHAPE_METHODS = {"view", "reshape", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "contiguous",
                 "to", "cuda", "cpu", "float", "double", "half"}
# methods on a module that return the same module
MODULE_MOVES = {"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "requires_grad_"}


def receiver_value(call: ast.Call, ctx: ModuleContext) -> ast.AST:
    """What the receiver of `recv.method(...)` holds; for `y = y.to(dev)` the value `y` had before."""
    receiver = call.func.value
    value = ctx.resolve(receiver)
    if value is not call:
        return value
    earlier = [v for v in ctx.values_of(receiver, at=receiver) if v is not call and v.lineno < call.lineno]
    return ctx.resolve(earlier[0]) if earlier else receiver


def strip_shape_ops(expr: ast.AST, ctx: ModuleContext) -> ast.AST:
    """`model(x).view(-1, C)` -> `model(x)`: what the values are does not depend on their layout."""
    value = ctx.resolve(expr)
    for _ in range(6):
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr in SHAPE_METHODS and ctx.call_name(value) is None):
            break
        value = receiver_value(value, ctx)
    return value


def final_layer(expr: ast.AST, ctx: ModuleContext, depth: int = 4) -> ast.Call | None:
    """The `nn.X(...)` that built the last layer `expr` came out of: self.fc(h), nn.Sequential, a local model."""
    value = ctx.resolve(expr)
    if depth <= 0 or not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Attribute) and len(ctx.values_of(value.func)) > 1:
        return None  # self.head assigned more than once: which layer runs is not visible
    built = ctx.resolve(value.func)
    for _ in range(4):  # model = Net().to(device); model = model.cuda()
        if isinstance(built, ast.Call) and ctx.method_name(built) in MODULE_MOVES:
            built = receiver_value(built, ctx)
    if not isinstance(built, ast.Call):  # a call of a local function
        name = ctx.call_name(value)
        return _returned_layer(ctx.functions[name], ctx, depth) if name in ctx.functions else None
    name = ctx.call_name(built) or ""
    if name == "torch.nn.Sequential":
        last = ctx.resolve(built.args[-1]) if built.args else None
        name = ctx.call_name(last) or ""
        built = last
    if name.startswith("torch.nn.") and name[9:10].isupper():
        return built  # a module class (nn.Linear), not a function (nn.functional.relu)
    return _returned_layer(ctx.classes[name], ctx, depth) if name in ctx.classes else None


def _returned_layer(owner: ast.AST | None, ctx: ModuleContext, depth: int) -> ast.Call | None:
    if isinstance(owner, ast.ClassDef):
        owner = next((n for n in owner.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if not isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    returns = [n.value for n in ast.walk(owner) if isinstance(n, ast.Return) and n.value is not None]
    layers = [final_layer(r, ctx, depth - 1) for r in returns]
    # every return must end in the same kind of layer, else the output is not known
    kinds = {ctx.call_name(layer) if layer else None for layer in layers}
    return layers[0] if len(kinds) == 1 and None not in kinds else None


def probability_kind(expr: ast.AST, ctx: ModuleContext) -> str | None:
    """'softmax' or 'sigmoid' (or 'log_softmax') for an activation output, 'raw logits' for a Linear output."""
    core = strip_shape_ops(expr, ctx)
    activation = ctx.activation_of(core)
    if activation:
        return activation
    layer = ctx.call_name(final_layer(core, ctx))
    return {"torch.nn.Linear": "raw logits", "torch.nn.Softmax": "softmax", "torch.nn.Sigmoid": "sigmoid",
            "torch.nn.LogSoftmax": "log_softmax"}.get(layer or "")


def loss_name(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The qualified name of the loss a call computes: `F.nll_loss(...)` (the function), `criterion(...)` (the
    class that built it), or a parameter's default (`def fit(..., loss_fn=nn.CrossEntropyLoss())`)."""
    name = ctx.call_name(call)
    if name is not None:
        return name
    built = ctx.constructed(call.func)
    if built is not None:
        return built
    default = kinds.parameter_default(call.func, ctx)
    if isinstance(default, ast.Call):
        return ctx.call_name(default)  # an instance built once, when the function was defined
    return ctx.qualname(default) if default is not None else None  # loss_fn=F.cross_entropy


def loss_inputs(call: ast.Call) -> list[ast.expr]:
    """The prediction a loss call is given: its first argument or `input=`."""
    first = call.args[:1]
    if first and isinstance(first[0], ast.Starred):
        return []
    return first or [k.value for k in call.keywords if k.arg == "input"]


def input_kinds(arg: ast.expr, ctx: ModuleContext) -> list[tuple[ast.expr, str]]:
    """(where, kind) for the value a loss is given: the argument itself when its kind is known here, else,
    when it is a parameter of the enclosing function, each argument the calls in this module pass for it."""
    kind = kinds.kind_of(arg, ctx)
    if kind is not None:
        return [(arg, kind)]
    core = arg
    while isinstance(core, ast.Call) and isinstance(core.func, ast.Attribute) and core.func.attr in SHAPE_METHODS:
        core = core.func.value  # out.view(-1, C) where out is a parameter
    found = []
    for passed in kinds.call_sites(core, ctx):
        kind = kinds.kind_of(passed, ctx)
        if kind is not None:
            found.append((passed, kind))
    return found
