"""Whether a tensor is a convolution's channels-first output, and which sizes make up its channel axis
(MLD040).

A Conv1d/2d/3d module returns (batch, channels, *spatial). Viewing that output so that the channel count,
or a factor of it (`num_anchors * 4` channels viewed as `(B, -1, 4)`), becomes the last axis reads the
channels as if they were stored last: the view groups neighbouring width positions instead. Only a
permute to channels-last first makes that view right.
"""

from __future__ import annotations

import ast
from collections.abc import Container

from .evaluation import strip_calls

CONVS = {"Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"}
# features-last layers: (keyword, position) of the size of their output's last axis
FEATURES_LAST = {"Linear": ("out_features", 1), "Embedding": ("embedding_dim", 1)}
# modules and functions that keep the layout: the conv's channels stay on axis 1 through them
KEEPS_LAYOUT = {"ReLU", "LeakyReLU", "GELU", "SiLU", "ELU", "PReLU", "Sigmoid", "Tanh", "Identity", "Dropout",
                "Dropout2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm2d",
                "relu", "leaky_relu", "gelu", "silu", "elu", "sigmoid", "tanh", "dropout", "batch_norm", "LayerNorm"}
# tensor methods that keep shape and memory order (a view of x.contiguous() is a view of x)
SAME_LAYOUT_METHODS = {"contiguous", "float", "double", "half", "clone", "detach", "to", "cuda", "cpu", "type_as"}


def short_size(expr: ast.expr) -> str:
    """Source text with `self.` dropped: `self.num_classes` and `num_classes` are the same count."""
    return ast.unparse(expr).replace("self.", "")


def _factors(expr: ast.expr) -> set[str]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _factors(expr.left) | _factors(expr.right) | {short_size(expr)}
    return {short_size(expr)}


def _conv_built(module: ast.expr, ctx, depth: int = 2, names: Container[str] = CONVS) -> ast.Call | None:
    """The `nn.ConvNd(...)` call (or one of other `names`) behind a module: itself, or the last layer of a
    Sequential."""
    built = _module_built(module, ctx)
    if not isinstance(built, ast.Call):
        return None
    name = (ctx.call_name(built) or "").rsplit(".", 1)[-1]
    if name in names:
        return built if name not in CONVS or torch_conv(ctx.call_name(built), ctx) else None
    if name == "Sequential" and built.args and depth:
        layers = [a for a in built.args if not (isinstance(a, ast.Call) and layer_name(a, ctx) in KEEPS_LAYOUT)]
        return _conv_built(layers[-1], ctx, depth - 1, names) if layers else None
    return None


def torch_conv(qualname: str | None, ctx, depth: int = 3) -> bool:
    """torch's `nn.Conv2d` (channels first), or a class of this module built on it (`class Conv2d(nn.Conv2d)`).
    Another library's conv may store its channels last (speechbrain's `sb.nnet.CNN.Conv1d` takes and returns
    (batch, time, channels)), and a conv class of another file of the project may too: neither is read as
    channels-first."""
    if not qualname:
        return False
    if qualname.startswith("torch."):
        return True
    cls = ctx.classes.get(qualname)
    return cls is not None and depth > 0 and any(torch_conv(ctx.qualname(b), ctx, depth - 1) for b in cls.bases)


def _module_built(module: ast.expr, ctx) -> ast.AST | None:
    """The constructor call behind a module: `self.head`, one of a ModuleList (`self.heads[i]`), or a loop
    variable over one (`for x, l in zip(feats, self.loc)`)."""
    if isinstance(module, ast.Subscript):
        return _element(ctx.resolve(module.value))
    if isinstance(module, ast.Name) and not ctx.values_of(module, at=module):
        container = _looped_container(module, ctx)
        return _element(ctx.resolve(container)) if container is not None else None
    return ctx.resolve(module)


def _looped_container(name: ast.Name, ctx) -> ast.expr | None:
    """`self.loc` for `l` in `for x, l in zip(feats, self.loc)`, `for i, l in enumerate(self.loc)`, `for l in self.loc`."""
    for loop in ctx.ancestors(name):
        if not isinstance(loop, ast.For):
            continue
        target, source = loop.target, loop.iter
        if isinstance(target, ast.Name) and target.id == name.id:
            return source
        if not isinstance(target, ast.Tuple) or not isinstance(source, ast.Call) \
                or not isinstance(source.func, ast.Name):
            continue
        index = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Name) and t.id == name.id), None)
        if index is None:
            continue
        if source.func.id == "zip" and index < len(source.args):
            return source.args[index]
        if source.func.id == "enumerate" and index == 1 and source.args:
            return source.args[0]
    return None


def _element(container: ast.AST) -> ast.AST | None:
    """The layer a `nn.ModuleList([...])` / list comprehension holds (the first, when listed)."""
    if isinstance(container, ast.Call) and container.args:
        container = container.args[0]  # nn.ModuleList(layers)
    if isinstance(container, ast.ListComp):
        return container.elt
    if isinstance(container, ast.List) and container.elts:
        return container.elts[0]
    return None


def layer_name(call: ast.Call, ctx) -> str:
    return (ctx.call_name(call) or ctx.constructed(call.func) or ctx.method_name(call) or "").rsplit(".", 1)[-1]


def conv_channel_sizes(tensor: ast.expr, at: ast.AST, ctx, depth: int = 4) -> set[str] | None:
    """The factors of the channel count when `tensor` holds a conv module's output (through activations and
    norms that keep the layout, in the same function); None otherwise."""
    found = _conv_behind(tensor, at, ctx, depth)
    out = _out_channels(found[0]) if found is not None else None
    return _with_attributes(_factors(out), found[0], ctx) if out is not None else None


def spanning_conv_channels(tensor: ast.expr, at: ast.AST, ctx) -> set[str]:
    """The texts of the whole out-channel count (`n_out`, and `self.k` where `self.k = n_out`) when `tensor` holds
    the output of a conv with a kernel wider than 1 and no padding (`nn.Conv2d(c, k, 4, 1, 0)`): a DCGAN-style
    decision layer whose kernel spans the map it is given, so its output is (batch, k, 1, 1) when the model is
    built for one input size. Empty otherwise: a kernel of 1 or a padded conv keeps the spatial size."""
    found = _conv_behind(tensor, at, ctx, 4)
    if found is None:
        return set()
    conv = found[0]
    out = _out_channels(conv)
    if out is None or not _spans_map(conv):
        return set()
    return _with_attributes({short_size(out)}, conv, ctx)


def _out_channels(conv: ast.Call) -> ast.expr | None:
    out = [k.value for k in conv.keywords if k.arg == "out_channels"] or conv.args[1:2]
    return out[0] if out else None


def _spans_map(conv: ast.Call) -> bool:
    keywords = {k.arg: k.value for k in conv.keywords}
    kernel = keywords.get("kernel_size", conv.args[2] if len(conv.args) > 2 else None)
    padding = keywords.get("padding", conv.args[4] if len(conv.args) > 4 else None)
    wide = isinstance(kernel, ast.Constant) and type(kernel.value) is int and kernel.value > 1
    return wide and (padding is None or isinstance(padding, ast.Constant) and padding.value in (0, "valid"))


def _with_attributes(factors: set[str], built: ast.AST, ctx) -> set[str]:
    """Add the attributes the constructor's parameters are kept as (`self.n_classes = k` beside
    `nn.Conv2d(c, k * 4, 3)`): a view reading `self.n_classes` names the same count, whatever `k` is called."""
    kept = _kept_as_attributes(ctx.scope_of(built), ctx)
    return factors | {a for f in factors for a in kept.get(f, ())}


def _kept_as_attributes(scope: ast.AST, ctx) -> dict[str, set[str]]:
    """name -> the attributes it is kept as in `scope` (`self.k = k`, `self.a, self.b = a, b`); once per scope."""
    def compute() -> dict[str, set[str]]:
        kept: dict[str, set[str]] = {}
        for assign in ctx.in_scope(scope, (ast.Assign,)):
            for target in assign.targets:
                pairs = zip(target.elts, assign.value.elts, strict=False) if isinstance(target, ast.Tuple) \
                    and isinstance(assign.value, ast.Tuple) else [(target, assign.value)]
                for attr, value in pairs:
                    if isinstance(attr, ast.Attribute) and isinstance(attr.value, ast.Name) \
                            and attr.value.id == "self" and isinstance(value, ast.Name):
                        kept.setdefault(value.id, set()).add(attr.attr)
        return kept
    return ctx.memo(("tensors-kept-as-attributes", scope), compute)


def conv_output_rank(tensor: ast.expr, at: ast.AST, ctx) -> int | None:
    """3, 4 or 5 when `tensor` holds a Conv1d/2d/3d output (batch, channels, *spatial); None otherwise."""
    found = _conv_behind(tensor, at, ctx, 4)
    name = (ctx.call_name(found[0]) or "").rsplit(".", 1)[-1] if found is not None else ""
    return int(name[-2]) + 2 if name in CONVS else None


def features_last_size(tensor: ast.expr, at: ast.AST, ctx) -> tuple[set[str], ast.expr, bool] | None:
    """(the texts of the last axis's size: the source text without `self.` and the attributes the constructor's
    size is kept as; the layer's input; whether the input's axes all carry over) when `tensor` holds a Linear or
    Embedding module's output (batch, ..., features), through layout-keeping layers in the same function.
    An Embedding appends its axis; a Linear replaces the last."""
    found = _conv_behind(tensor, at, ctx, 4, FEATURES_LAST)
    if found is None:
        return None
    layer, call = found
    kind = (ctx.call_name(layer) or "").rsplit(".", 1)[-1]
    keyword, position = FEATURES_LAST[kind]
    size = [k.value for k in layer.keywords if k.arg == keyword] or layer.args[position:position + 1]
    return (_with_attributes({short_size(size[0])}, layer, ctx), call.args[0], kind == "Embedding") if size else None


def conv_run(tensor: ast.expr, at: ast.AST, ctx) -> tuple[ast.Call, ast.Call] | None:
    """(the torch conv's construction, the call that runs it) when `tensor` holds its output, through layers that
    keep the layout, in the function of `at`."""
    return _conv_behind(tensor, at, ctx, 4)


def _conv_behind(tensor: ast.expr, at: ast.AST, ctx, depth: int,
                 names: Container[str] = CONVS) -> tuple[ast.Call, ast.Call] | None:
    """(the conv module's construction (or one of other `names`) whose output `tensor` holds, through
    layout-keeping layers; the call that runs it)."""
    current = strip_calls(tensor, SAME_LAYOUT_METHODS)
    scope = ctx.scope_of(at)
    for _ in range(depth):
        if isinstance(current, ast.Name):
            values = [v for v in ctx.values_of(current, at=at) if getattr(v, "lineno", 0) < at.lineno]
            if not values or ctx.scope_of(values[0]) is not scope:
                return None
            current = strip_calls(values[0], SAME_LAYOUT_METHODS)
        if not isinstance(current, ast.Call) or not current.args:
            return None
        conv = _conv_built(current.func, ctx, 2, names)
        if conv is not None:
            return conv, current
        if layer_name(current, ctx) not in KEEPS_LAYOUT:
            return None
        current, at = strip_calls(current.args[0], SAME_LAYOUT_METHODS), current
    return None


def channels_viewed_last(sizes: list[ast.expr], channels: set[str]) -> bool:
    """`view(B, -1, 4)` / `view(-1, C)` on a (B, A * 4, H, W) output: the last size is the channel count or a
    factor of it, so the view needs the channels stored last."""
    last = sizes[-1]
    if isinstance(last, ast.Constant) and last.value in (-1, 1):
        return False
    return len(sizes) >= 2 and short_size(last) in channels
