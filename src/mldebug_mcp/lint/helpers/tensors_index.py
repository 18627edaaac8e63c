"""Row indices squeezed without a dim (MLD041): `idx = mask.nonzero().squeeze()` then `scores[idx, :]`.

nonzero() returns (n, 1) indices; squeeze() with no dim makes them (n,) but, when exactly one row matches,
a 0-d index: `scores[idx, :]` then loses the rows axis and a loss compares a (C,) row with a 0-d label, or
broadcasts. Only uses that show the rows axis is meant to stay are flagged: a subscript that also slices
another axis, rows picked straight into a loss, or the index handed to a function of this module that
does either. `values[idx].sum()` gives the same number either way and stays quiet.
"""

from __future__ import annotations

import ast

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MESSAGE = ("nonzero().squeeze() without a dim used as row indices: when one row matches it is a 0-d index and "
           "the rows picked lose their axis")
# methods and dtype moves after the squeeze that keep the index as it is
KEEPS_INDEX = {"long", "int", "to", "cuda", "cpu", "view_as", "type", "detach"}


def squeezed_rows_index(squeeze: ast.Call, ctx) -> str | None:
    """The message when `squeeze` (a dim-less squeeze) turns nonzero() indices into row indices on a loss path."""
    tensor = squeeze.func.value if ctx.call_name(squeeze) is None else (squeeze.args or [None])[0]
    if not _is_nonzero(tensor, ctx):
        return None
    func = ctx.enclosing(squeeze, FUNCTIONS)
    if func is None or not _on_loss_path(func, ctx):
        return None
    holder, value = ctx.parent(squeeze), squeeze
    while isinstance(holder, ast.Attribute) and isinstance(ctx.parent(holder), ast.Call) \
            and holder.attr in KEEPS_INDEX:
        value = ctx.parent(holder)
        holder = ctx.parent(value)
    if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        return MESSAGE if _picks_rows(holder.targets[0].id, func, ctx, 2) else None
    return MESSAGE if _keeps_rows(value, ctx) else None


def _is_nonzero(tensor: ast.AST, ctx) -> bool:
    if not isinstance(tensor, ast.Call) or any(k.arg == "as_tuple" and not _false(k.value) for k in tensor.keywords):
        return False
    return ctx.call_name(tensor) == "torch.nonzero" or ctx.call_name(tensor) is None \
        and ctx.method_name(tensor) == "nonzero" and not tensor.args


def _false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is False


def _on_loss_path(func: ast.AST, ctx) -> bool:
    """A loss function or method (`loss` in its name), or any method of a loss class."""
    if "loss" in func.name.lower():
        return True
    cls = ctx.enclosing_class(func)
    return cls is not None and cls.name.lower().endswith(("loss", "criterion"))


def _picks_rows(name: str, func: ast.AST, ctx, depth: int) -> bool:
    """A use of `name` in `func` that keeps the rows axis, or a hand-off to a local function that makes one."""
    for use in ctx.in_scope(func, (ast.Name,)):
        if use.id != name or not isinstance(use.ctx, ast.Load):
            continue
        if _keeps_rows(use, ctx):
            return True
        call = ctx.parent(use)
        if depth and isinstance(call, ast.Call) and use in call.args:
            callee = _local_callee(call, ctx)
            if callee is not None:
                params = [a.arg for a in callee.args.posonlyargs + callee.args.args]
                offset = 1 if params[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute) else 0
                position = call.args.index(use) + offset
                if position < len(params) and _picks_rows(params[position], callee, ctx, depth - 1):
                    return True
    return False


def _keeps_rows(index: ast.AST, ctx) -> bool:
    """`x[idx, :]` / `x[:, idx]` (another axis sliced), or `x[idx]` handed straight to a loss."""
    holder = ctx.parent(index)
    if isinstance(holder, ast.Tuple) and isinstance(ctx.parent(holder), ast.Subscript) \
            and ctx.parent(holder).slice is holder:
        return any(isinstance(e, ast.Slice) for e in holder.elts)
    if not (isinstance(holder, ast.Subscript) and holder.slice is index):
        return False
    user = ctx.parent(holder)
    return isinstance(user, ast.Call) and holder in user.args and _loss_call(user, ctx)


def _loss_call(call: ast.Call, ctx) -> bool:
    name = ctx.call_name(call) or ctx.constructed(call.func) or ""
    return name.startswith("torch.nn.") and name.endswith(("_loss", "Loss", "cross_entropy"))


def _local_callee(call: ast.Call, ctx) -> ast.AST | None:
    """The function `f(...)` or method `self.f(...)` of this module that a call runs."""
    func = call.func
    if isinstance(func, ast.Name):
        return ctx.functions.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(call)
        found = [n for n in cls.body if isinstance(n, FUNCTIONS) and n.name == func.attr] if cls else []
        return found[0] if found else None
    return None
