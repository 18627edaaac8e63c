"""The input axes a view's sizes name (MLD040): each size read as the expression it holds (`c = x.size(1)`, bound
in the view's scope before it), mapped to the axes of the viewed tensor it stands for, and the views those axes
show to move an axis (listed out of order, rows an index picks listed behind a stored axis, a conv output's axis
kept with nothing after it to hold the axes that follow)."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .tensors_channels import conv_output_rank
from .tensors_layout import value_before
from .tensors_shape import axes_of


def rows_behind_inner_axis(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> bool:
    """`n_layers = states.shape[1]`, `n_seq = len(starts)`, then `states[batch][starts].reshape(n_layers, n_seq, -1)`:
    rows picked by an index array come first (len(starts) of them) and keep the stored axes after them, so
    listing a stored axis before the row count regroups memory instead of swapping the two axes."""
    index = tensor.slice if isinstance(tensor, ast.Subscript) else None
    if not isinstance(index, ast.Name | ast.Attribute):
        return False
    base = tensor
    while isinstance(base, ast.Subscript):
        base = base.value
    source, rows = ast.dump(base), ast.dump(index)
    axes = []
    for size in sizes:
        value = _size_value(size, call, ctx)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len" \
                and len(value.args) == 1 and ast.dump(value.args[0]) == rows:
            axes.append(0)  # the number of rows the index picks
            continue
        found = axes_of(value, source) if value is not None else None
        axes.append(next(iter(found)) if found and len(found) == 1 else None)
    if 0 not in axes:
        return False
    first = axes.index(0)
    return any(a is not None and a >= 1 for a in axes[:first])


def axis_stranded(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> ast.expr | None:
    """`h = x.size(2)` then `x.view(b, -1, h, 1)` on a Conv2d output (b, c, h, w): the size of axis 2 is kept as
    an axis, but only literal 1s follow it while the input's axis 3 follows axis 2, so the -1 before it takes
    c * w and the kept axis is made of other elements. Returns the stranded size."""
    source = ast.dump(tensor)
    if _exact_by_count(sizes, source, call, ctx):
        return None
    rank = None
    for position, size in enumerate(sizes):
        axes = named_axes(size, source, call, ctx)
        if axes is None or len(axes) != 1:
            continue
        axis = next(iter(axes))
        rest = sizes[position + 1:]
        if not all(isinstance(r, ast.Constant) and r.value == 1 for r in rest):
            continue  # something after it may hold the following axes
        rank = rank or conv_output_rank(tensor, call, ctx)
        if rank is None:
            return None
        if 0 < axis < rank - 1:  # the input has axes after this one; the view has no place for them
            return size
    return None


def _exact_by_count(sizes: list[ast.expr], source: str, call: ast.Call, ctx: ModuleContext) -> bool:
    """`s.view(s.size(0), s.size(1))` on a conv output pooled to (b, c, 1, 1): no -1, and every size is one of
    the input's own axes, in order, or a literal 1. The element count then forces the axes left out to be 1:
    the view only drops unit axes, and were they not 1 it would raise instead of mixing elements."""
    last = -1
    for size in sizes:
        if isinstance(size, ast.Constant) and size.value == 1:
            continue
        axes = named_axes(size, source, call, ctx)
        if axes is None or len(axes) != 1 or next(iter(axes)) <= last:
            return False
        last = next(iter(axes))
    return True


def named_axes(size: ast.expr, source: str, call: ast.Call, ctx: ModuleContext) -> set[int] | None:
    """The input axes a size stands for: `x.size(2)`, or a name assigned one in this scope before the view."""
    size = _size_value(size, call, ctx)
    if size is None:
        return None
    axes = axes_of(size, source)
    return {a for a in axes if a >= 0} if axes else None


def inverted_named_dims(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> bool:
    """`batch = x.shape[0]; features = x.shape[1]; pixels = x.shape[2] * x.shape[3]` then
    `x.view(batch, pixels, features)`: sizes held in names (or products of them) that stand for the tensor's
    own axes, listed out of order."""
    if not isinstance(tensor, ast.Name) or not any(isinstance(s, ast.Name) for s in sizes):
        return False
    source = ast.dump(tensor)
    reassigned = [getattr(v, "lineno", 0) for v in ctx.values_of(tensor, at=call)]
    groups = []
    for size in sizes:
        value = _size_value(size, call, ctx)
        if isinstance(size, ast.Name) and (
                value is None or any(value.lineno < line < call.lineno for line in reassigned)):
            groups.append(None)  # unknown, or read before the tensor was rebound
            continue
        groups.append(axes_of(value, source))
    known = [g for g in groups if g]
    return len(known) >= 2 and any(
        (a >= 0) == (b >= 0) and a > b for i, first in enumerate(known) for later in known[i + 1:]
        for a in first for b in later)


def _size_value(size: ast.expr, call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """What a size names: itself, or for a name its latest value bound before `call` in the same scope (None when
    it comes from elsewhere)."""
    return value_before(size, call, ctx) if isinstance(size, ast.Name) else size


def named_sizes(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> list[ast.expr]:
    """The sizes with each name read as its value (`c = x.size(1)`), when bound in this scope after the tensor."""
    if not isinstance(tensor, ast.Name) or not any(isinstance(s, ast.Name) for s in sizes):
        return sizes
    reassigned = [getattr(v, "lineno", 0) for v in ctx.values_of(tensor, at=call)]
    named = []
    for size in sizes:
        value = _size_value(size, call, ctx)
        stale = value is not None and any(value.lineno < line < call.lineno for line in reassigned)
        named.append(size if value is None or stale or not isinstance(value, ast.expr) else value)
    return named
