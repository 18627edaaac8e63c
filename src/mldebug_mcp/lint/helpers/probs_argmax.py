"""A softmax probability picked at its argmax (MLD061): the largest of V probabilities is at least 1/V, never 0.

ParlAI's greedy search: `tok_scores, tok_ids = logprobs.max(1)`, then
`torch.softmax(logprobs.view(-1), dim=-1)[tok_ids].log()`. The index is the argmax of the softmax's input (or
of the probabilities themselves), so the entry picked is the row's largest probability.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import latest_value, module_index

# calls that keep a tensor's entries where they are, up to its shape
RESHAPES = {"view", "reshape", "flatten", "squeeze", "unsqueeze", "contiguous", "float", "double", "detach"}
SOFTMAXES = {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax"}


def picked_at_argmax(value: ast.expr, ctx: ModuleContext) -> bool:
    """`p[i]`, `p[rows, i]`, `p.gather(1, i.unsqueeze(1))` with `p = softmax(z)` and `i` the argmax of `z` or
    of `p` (`z.argmax(1)`, `z.max(1)[1]`, `_, i = torch.max(z, 1)`)."""
    picked = _picked(_unreshaped(value, ctx), ctx)
    if picked is None:
        return False
    source, index = picked
    probabilities = _held(_unreshaped(source, ctx), ctx)
    logits = _softmax_input(probabilities, ctx)
    if logits is None:
        return False
    ranked = _argmax_of(_unreshaped(index, ctx), ctx)
    if ranked is None:
        return False
    text = ast.unparse(_unreshaped(ranked, ctx))
    return text in {ast.unparse(_unreshaped(logits, ctx)), ast.unparse(_unreshaped(source, ctx))}


def _picked(expr: ast.expr, ctx: ModuleContext) -> tuple[ast.expr, ast.expr] | None:
    """(the tensor, the index along the picked axis) of `p[..., i]` or `p.gather(d, i)`."""
    if isinstance(expr, ast.Subscript):
        index = expr.slice.elts[-1] if isinstance(expr.slice, ast.Tuple) and expr.slice.elts else expr.slice
        return expr.value, index
    if isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) == "gather" \
            and len(expr.args) == 2:
        return expr.func.value, expr.args[1]
    return None


def _unreshaped(expr: ast.expr, ctx: ModuleContext) -> ast.expr:
    for _ in range(6):
        if not (isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in RESHAPES):
            break
        expr = expr.func.value
    return expr


def _held(expr: ast.expr, ctx: ModuleContext) -> ast.expr:
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        return value if value is not None else expr
    return expr


def _softmax_input(expr: ast.expr, ctx: ModuleContext) -> ast.expr | None:
    """`z` of `F.softmax(z, -1)`, `torch.softmax(z, dim=-1)`, `z.softmax(-1)`."""
    if not isinstance(expr, ast.Call):
        return None
    if ctx.call_name(expr) in SOFTMAXES and expr.args:
        return expr.args[0]
    if ctx.call_name(expr) is None and ctx.method_name(expr) == "softmax":
        return expr.func.value
    return None


def _argmax_of(index: ast.expr, ctx: ModuleContext) -> ast.expr | None:
    """The tensor whose argmax `index` is: `z.argmax(d)`, `z.max(d)[1]`, `z.max(d).indices`, or a name assigned
    one of these, or the second name of `_, i = z.max(d)`."""
    if isinstance(index, ast.Name):
        stored = _second_of_pair(index, ctx)
        if stored is not None:
            return stored
        index = latest_value(index, ctx)
    if isinstance(index, ast.Subscript) and isinstance(index.slice, ast.Constant) and index.slice.value == 1:
        return _maximised(index.value, ctx)
    if isinstance(index, ast.Attribute) and index.attr == "indices":
        return _maximised(index.value, ctx)
    if isinstance(index, ast.Call):
        name = ctx.call_name(index)
        if name == "torch.argmax" and index.args:
            return index.args[0]
        if name is None and ctx.method_name(index) == "argmax":
            return index.func.value
    return None


def _second_of_pair(name: ast.Name, ctx: ModuleContext) -> ast.expr | None:
    """`values, name = z.max(d)` before the line that reads `name`: the `z` maximised."""
    found = [a for a in module_index(ctx)["tuples"].get((ctx.scope_of(name), name.id), ()) if a.lineno < name.lineno]
    if not found:
        return None
    assign = max(found, key=lambda a: a.lineno)
    target = assign.targets[0]
    if len(assign.targets) != 1 or not isinstance(target, ast.Tuple) or len(target.elts) != 2:
        return None
    second = target.elts[1]
    if not (isinstance(second, ast.Name) and second.id == name.id):
        return None
    return _maximised(assign.value, ctx)


def _maximised(call: ast.expr, ctx: ModuleContext) -> ast.expr | None:
    """`z` of `z.max(d)` or `torch.max(z, d)` (with a dim: the pair of values and indices)."""
    if not isinstance(call, ast.Call):
        return None
    if ctx.call_name(call) == "torch.max" and len(call.args) == 2 and not isinstance(call.args[1], ast.Name):
        return call.args[0]
    if ctx.call_name(call) is None and ctx.method_name(call) == "max" and (call.args or call.keywords):
        return call.func.value
    return None
