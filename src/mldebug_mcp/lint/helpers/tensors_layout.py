"""The axes of a tensor after a permute or transpose, named by the sizes the code unpacked (MLD040).

`B, C, H, W = x.shape`, `x = self.embed(x)` (an Embedding appends an axis), `x = x.permute(0, 1, 3, 2, 4)`
gives the layout [B, C, W, H, ?]. A later `x.reshape(B, C * D, H, W)` can only merge neighbours of that
layout; naming H before W reads width positions as rows (and mixes the appended axis into them).
"""

from __future__ import annotations

import ast
from collections import Counter

from .evaluation import strip_calls
from .tensors_channels import KEEPS_LAYOUT, SAME_LAYOUT_METHODS, layer_name
from .tensors_shape import REST

REORDERS = {"permute", "transpose", "swapaxes", "swapdims"}
APPENDS_AXIS = {"Embedding"}  # (*) -> (*, dim)
# (*, in) -> (*, out): the leading axes carry over in their order. A recurrent layer keeps (seq, batch) first
# without batch_first and (batch, seq) with it: either way its output has its input's leading axes
REPLACES_LAST = {"Linear", "LazyLinear"}
RECURRENT = {"GRU", "LSTM", "RNN"}


def reordered_layout(tensor: ast.expr, call: ast.Call, ctx, unpacks) -> tuple[list[ast.expr], ast.Call] | None:
    """The named axes of `tensor` at `call`, with the permute or transpose that just reordered them (inline, or
    as the value its name holds); `unpacks` lists (assignment, names, dump of the tensor) for `B, T, C = x.shape`."""
    current, at = strip_calls(tensor, SAME_LAYOUT_METHODS), call
    if isinstance(current, ast.Name):
        value = value_before(current, call, ctx)
        if value is None or _unpacked_after(current, value, call, ctx, unpacks) or not _always_before(value, call, ctx):
            return None
        current, at = strip_calls(value, SAME_LAYOUT_METHODS), value
    if not _reorder(current, ctx):
        return None
    layout = _layout(current, at, ctx, unpacks, 4)
    return (layout, current) if layout is not None else None


def _layout(expr: ast.expr, at: ast.AST, ctx, unpacks, depth: int, trail: list | None = None) -> list[ast.expr] | None:
    """The named axes of `expr` at `at`; `trail`, when given, collects the reorders met on the way."""
    expr = strip_calls(expr, SAME_LAYOUT_METHODS)
    if depth <= 0:
        return None
    if _reorder(expr, ctx):
        base = _layout(expr.func.value, expr, ctx, unpacks, depth - 1, trail)
        if trail is not None:
            trail.append(expr)
        return _reordered(base, expr) if base is not None else None
    if isinstance(expr, ast.Name):
        value = _bound_before(expr, at, ctx)
        names = _unpacked_after(expr, value, at, ctx, unpacks)
        if names is not None:
            return names
        if value is None:
            returned = _returned_part(expr, at, ctx)  # `values, attention = attend(q, k, v)`
            return _through_function(*returned, ctx, unpacks, depth - 1, trail) if returned else None
        if not _always_before(value, at, ctx):
            return None  # set in one arm of an if, read in the other (or after either): either layout may hold
        return _layout(value, value, ctx, unpacks, depth - 1, trail)
    written = _written_sizes(expr, ctx)
    if written is not None:  # `x.view(B, T, H, D)`: the sizes it names
        return written
    side = _matmul_values(expr, ctx)
    if side is not None:  # `weights @ v`: v's leading axes and columns, the weights' rows
        values = _layout(side, at, ctx, unpacks, depth - 1, trail)
        weights = _layout(_matmul_weights(expr), at, ctx, unpacks, depth - 1)
        if values is None or len(values) < 2:
            return None
        # unknown weights (a softmax of scores): self-attention, one row per position of v
        return [*values[:-2], weights[-2] if weights is not None and len(weights) >= 2 else values[-2], values[-1]]
    expr = _recurrent_call(expr, ctx) or expr  # `self.lstm(x)[0]`: the outputs
    if isinstance(expr, ast.Call) and expr.args and ctx.call_name(expr) is None:
        layer = layer_name(expr, ctx)
        if layer in APPENDS_AXIS:
            base = _layout(expr.args[0], expr, ctx, unpacks, depth - 1)
            return base + [ast.Name(id=f"<{layer} axis>")] if base is not None else None
        if layer in REPLACES_LAST or layer in RECURRENT:
            base = _layout(expr.args[0], expr, ctx, unpacks, depth - 1)
            return base[:-1] + [ast.Name(id=f"<{layer} axis>")] if base is not None and len(base) >= 2 else None
        if layer in KEEPS_LAYOUT:
            return _layout(expr.args[0], expr, ctx, unpacks, depth - 1)
    return None


def named_layout(expr: ast.expr, at: ast.AST, ctx, unpacks) -> list[ast.expr] | None:
    """The named axes of `expr` at `at`, followed through names, layers and reorders (None when not known)."""
    return _layout(expr, at, ctx, unpacks, 6)


def reordered_on_the_way(expr: ast.expr, at: ast.AST, ctx, unpacks) -> list[ast.expr] | None:
    """The named axes of `expr` at `at` when a permute or transpose reordered them on the way: heads split by
    `view(B, T, H, D).transpose(1, 2)`, weighted by `attention @ v` (also in a helper of this file that returns
    it), then merged by `view(B, T, C)` without the transpose back."""
    trail: list = []
    layout = _layout(expr, at, ctx, unpacks, 10, trail)
    return layout if trail and distinct(layout) else None


def distinct(sizes: list[ast.expr] | None) -> bool:
    """No two known sizes read alike: with `(n, h * w, h * w)` a transpose cannot be told from none."""
    keys = [ast.unparse(s) for s in sizes or () if s is not REST]
    return len(set(keys)) == len(keys)


def layer_layout(tensor: ast.expr, call: ast.Call, ctx, unpacks) -> tuple[list[ast.expr], str] | None:
    """(the named axes of `tensor` at `call`, the layer that made it) when `tensor` is a Linear, Embedding or
    recurrent layer's output (inline, or as the value its name holds): `B, N, C = x.shape`, then
    `self.qkv(x)` is [B, N, <Linear axis>]; `out, _ = self.gru(x.transpose(0, 1))` is [N, B, <GRU axis>]."""
    current, at = strip_calls(tensor, SAME_LAYOUT_METHODS), call
    if isinstance(current, ast.Name):
        value = _bound_before(current, call, ctx)
        if value is None or _unpacked_after(current, value, call, ctx, unpacks):
            return None
        current, at = strip_calls(value, SAME_LAYOUT_METHODS), value
    made = _recurrent_call(current, ctx) or current
    layer = layer_name(made, ctx) if isinstance(made, ast.Call) and ctx.call_name(made) is None else ""
    if layer not in REPLACES_LAST | RECURRENT | APPENDS_AXIS:
        return None
    layout = _layout(current, at, ctx, unpacks, 6)
    return (layout, layer) if layout is not None else None


def _recurrent_call(expr: ast.expr, ctx) -> ast.Call | None:
    """The recurrent layer call behind `self.rnn(x)` or `self.rnn(x)[0]` (its outputs, not its hidden state)."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value == 0:
        expr = expr.value
    ok = isinstance(expr, ast.Call) and expr.args and ctx.call_name(expr) is None and layer_name(expr, ctx) in RECURRENT
    return expr if ok else None


def _bound_before(name: ast.Name, at: ast.AST, ctx) -> ast.expr | None:
    """value_before, or the recurrent call whose outputs a later `out, (h, c) = self.lstm(x)` unpacks into
    `name` (tuple targets of a call are not bound by the context)."""
    value = value_before(name, at, ctx)
    part = _cut_part(name, at, ctx)
    if part is not None and (value is None or part.lineno > value.lineno):
        return part
    if not ctx.memo(("layout", "recurrent-text"), lambda: any(map(ctx.has_text, RECURRENT))):
        return value  # no recurrent layer named in the module: no outputs to unpack
    latest = _latest_unpack(name, at, ctx, first_only=True)
    if latest is not None and (value is None or latest.lineno > value.lineno):
        return _recurrent_call(latest.value, ctx)
    return value


def _latest_unpack(name: ast.Name, at: ast.AST, ctx, first_only: bool) -> ast.Assign | None:
    """The latest `a, b = call(...)` of the function before `at` that unpacks into `name` (as its first target,
    with `first_only`)."""
    def unpacks(assign: ast.Assign) -> bool:
        targets = assign.targets[-1]
        if not (isinstance(assign.value, ast.Call) and isinstance(targets, ast.Tuple | ast.List) and targets.elts):
            return False
        elts = targets.elts[:1] if first_only else targets.elts
        return any(isinstance(e, ast.Name) and e.id == name.id for e in elts)

    found = [a for a in ctx.in_scope(ctx.scope_of(at), (ast.Assign,)) if a.lineno < at.lineno and unpacks(a)]
    return max(found, key=lambda a: a.lineno, default=None)


CUTS = {"chunk", "split", "tensor_split"}


def _cut_part(name: ast.Name, at: ast.AST, ctx) -> ast.expr | None:
    """`q, k, v = self.qkv(x).chunk(3, dim=-1)`: each part of a tensor cut along its last axis has the tensor's
    axes, so the part `name` is read as the tensor that was cut (the latest such unpack before `at`)."""
    if not ctx.memo(("layout", "cut-text"), lambda: any(map(ctx.has_text, CUTS))):
        return None
    latest = _latest_unpack(name, at, ctx, first_only=False)
    if latest is None:
        return None
    call = latest.value
    if ctx.call_name(call) is not None or ctx.method_name(call) not in CUTS:
        return None
    dim = next((k.value for k in call.keywords if k.arg == "dim"), call.args[1] if len(call.args) > 1 else None)
    return call.func.value if dim is not None and _int(dim) == -1 else None


def _reorder(expr: ast.AST, ctx) -> bool:
    return isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in REORDERS


def _reordered(layout: list[ast.expr], call: ast.Call) -> list[ast.expr] | None:
    """`layout` permuted by `.permute(0, 2, 1)` / `.transpose(1, 2)`; None for axes not written as numbers."""
    args = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], ast.Tuple | ast.List) else call.args
    axes = [_int(a) for a in args]
    if any(a is None for a in axes) or call.keywords:
        return None
    rank = len(layout)
    axes = [a + rank if a < 0 else a for a in axes]
    if any(not 0 <= a < rank for a in axes):
        return None
    if call.func.attr == "permute":
        return [layout[a] for a in axes] if sorted(axes) == list(range(rank)) else None
    if len(axes) != 2:
        return None
    swapped = list(layout)
    swapped[axes[0]], swapped[axes[1]] = layout[axes[1]], layout[axes[0]]
    return swapped


def _int(expr: ast.expr) -> int | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _int(expr.operand)
        return -inner if inner is not None else None
    ok = isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool)
    return expr.value if ok else None


def value_before(name: ast.Name, at: ast.AST, ctx) -> ast.expr | None:
    """The value `name` last held before `at`, assigned in the same function."""
    values = [v for v in ctx.values_of(name, at=at) if getattr(v, "lineno", 0) < at.lineno]
    if values and any(a is values[0] for a in ctx.ancestors(at)):
        values = values[1:]  # `x = self.proj(x.reshape(...))` spread over lines: the value being computed at `at`
    return values[0] if values and ctx.scope_of(values[0]) is ctx.scope_of(at) else None


def _unpacked_after(name: ast.Name, value: ast.AST | None, at: ast.AST, ctx, unpacks) -> list[ast.expr] | None:
    """The names of `B, T, C = name.shape` when that unpack is the latest fact about `name` before `at`."""
    source, scope = ast.dump(ast.Name(id=name.id, ctx=ast.Load())), ctx.scope_of(at)
    since = getattr(value, "lineno", 0)
    found = [(a.lineno, names) for a, names, s in unpacks
             if s == source and since <= a.lineno < at.lineno and ctx.scope_of(a) is scope]
    if not found:
        return None
    return [ast.Name(id=n) for n in max(found, key=lambda f: f[0])[1]]


RESHAPES = {"view", "reshape"}
MATMULS = {"torch.matmul", "torch.bmm"}


def _written_sizes(expr: ast.expr, ctx) -> list[ast.expr] | None:
    """The sizes `x.view(B, T, H, D)` (or `.reshape((B, T, H, D))`) writes out, -1 read as unknown from there on.
    None when two sizes read alike (`view(n, h * w, h * w)`: a transpose of them cannot be told from none) or a
    name in them is bound twice in the function (`channels *= r ** 2`: a later size of that name is another)."""
    if not (isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in RESHAPES):
        return None
    args = expr.args[0].elts if len(expr.args) == 1 and isinstance(expr.args[0], ast.Tuple | ast.List) else expr.args
    if len(args) < 2 or expr.keywords or any(isinstance(a, ast.Starred) for a in args):
        return None
    sizes = [REST if _int(a) == -1 else a for a in args]
    if not distinct(sizes):
        return None
    names = {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)}
    if not names:
        return sizes
    scope = ctx.scope_of(expr)
    bound = ctx.memo(("layout", "bound", id(scope)), lambda: Counter(
        n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)))
    return None if any(bound[name] > 1 for name in names) else sizes


def _always_before(value: ast.AST, at: ast.AST, ctx) -> bool:
    """The statement holding `value` runs whenever `at` does: the block holding it also holds `at` (or a
    statement around it), not the other arm of an if."""
    statement = value
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = ctx.parent(statement)
    parent = ctx.parent(statement) if statement is not None else None
    if parent is None:
        return True
    block = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody"))
                  if isinstance(b, list) and any(s is statement for s in b)), None)
    if block is None:
        return False
    return any(node is s for node in (at, *ctx.ancestors(at)) for s in block)


def _matmul_values(expr: ast.expr, ctx) -> ast.expr | None:
    """The right-hand side of `attention @ v` or `torch.matmul(attention, v)`."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.MatMult):
        return expr.right
    if isinstance(expr, ast.Call) and ctx.call_name(expr) in MATMULS and len(expr.args) == 2:
        return expr.args[1]
    return None


def _matmul_weights(expr: ast.expr) -> ast.expr:
    return expr.left if isinstance(expr, ast.BinOp) else expr.args[0]


def _returned_part(name: ast.Name, at: ast.AST, ctx) -> tuple[ast.expr, ast.FunctionDef, ast.Call] | None:
    """For `values, attention = attend(q, k, v)` (a function of this module returning a tuple): (the element of
    its return that `name` receives, the function, the call)."""
    latest = _latest_unpack(name, at, ctx, first_only=False)
    if latest is None or not isinstance(latest.value.func, ast.Name):
        return None
    function = ctx.functions.get(latest.value.func.id)
    returns = [r for r in ast.walk(function) if isinstance(r, ast.Return)] if function is not None else []
    targets = latest.targets[-1].elts
    index = next(i for i, t in enumerate(targets) if isinstance(t, ast.Name) and t.id == name.id)
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Tuple) or len(returns[0].value.elts) != len(targets):
        return None
    return returns[0].value.elts[index], function, latest.value


def _through_function(expr: ast.expr, function: ast.FunctionDef, call: ast.Call, ctx, unpacks, depth: int,
                      trail: list | None) -> list[ast.expr] | None:
    """The layout of `expr` inside `function`, followed back to one of its parameters and from there to what
    `call` passes for it: through names, layout-keeping methods and the value side of a matmul."""
    params = [a.arg for a in function.args.args]
    for _ in range(depth):
        expr = strip_calls(expr, SAME_LAYOUT_METHODS)
        if isinstance(expr, ast.Name):
            value = value_before(expr, expr, ctx)
            if value is not None:
                expr = value
                continue
            if expr.id not in params or params.index(expr.id) >= len(call.args):
                return None
            return _layout(call.args[params.index(expr.id)], call, ctx, unpacks, depth - 1, trail)
        expr = _matmul_values(expr, ctx)
        if expr is None:
            return None
    return None
