"""Whether a view splits a tensor's leading axis back into the factors an earlier view of the same function
flattened into it (MLD040).

`x = x.view(bsz * tsz * groups, -1)` (speechbrain's quantiser), then `x.view(bsz * tsz, groups, -1)`; or
`B, D, N, L = opts.size()`, `opts = opts.view(-1, L)`, an Embedding and a projection (layers keep the leading
axis), then `opts.view(B * D, N, hidden)` (mmf's decoder): the leading axis already holds the product, in
that order, so the view only cuts it where the flatten joined it. No axis moves; nothing is mixed. Factors in
another order (`x.view(bsz * groups, tsz, -1)`) cut the same count at other places and are not this shape.
"""

from __future__ import annotations

import ast

from .evaluation import strip_calls
from .tensors_channels import SAME_LAYOUT_METHODS, short_size
from .tensors_layout import value_before
from .tensors_shape import dim_index, shape_owner

RESHAPES = {"view", "reshape"}


def splits_flattened_rows(call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx) -> bool:
    """`sizes` (a view of `tensor` at `call`) list, before their last size, the factors of the leading axis an
    earlier two-size view of the same function made, in the order it joined them."""
    flatten = _flattening_view(tensor, call, ctx)
    if flatten is None:
        return False
    joined = _joined_factors(flatten, ctx)
    split = [f for size in sizes[:-1] for f in _factors(size)]
    return joined is not None and len(joined) >= 2 and split == joined


def _flattening_view(tensor: ast.expr, at: ast.AST, ctx, depth: int = 4) -> ast.Call | None:
    """The two-size `v.view(P, K)` whose leading axis `tensor` still has: its value in this function, through
    dtype and device moves and through modules (`self.proj(x)`: a layer keeps the leading axis)."""
    current = strip_calls(tensor, SAME_LAYOUT_METHODS)
    for _ in range(depth):
        if isinstance(current, ast.Name):
            value = value_before(current, at, ctx)
            if value is None:
                return None
            current, at = strip_calls(value, SAME_LAYOUT_METHODS), value
        if not isinstance(current, ast.Call):
            return None
        if ctx.call_name(current) is None and ctx.method_name(current) in RESHAPES:
            return current if len(_sizes(current)) == 2 else None
        if not _module_call(current, ctx):
            return None
        current = strip_calls(current.args[0], SAME_LAYOUT_METHODS)
    return None


def _module_call(call: ast.Call, ctx) -> bool:
    """`self.embedding(x)`: a layer the module keeps as an attribute (set in one of its methods, not a method
    itself) applied to one tensor."""
    func = call.func
    if len(call.args) != 1 or not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                   and func.value.id == "self"):
        return False
    cls = ctx.enclosing_class(call)
    return cls is not None and func.attr in ctx.class_attrs.get(cls.name, {})


def _joined_factors(flatten: ast.Call, ctx) -> list[str] | None:
    """The factors the leading size of `flatten` joins, in order: `bsz * tsz * self.groups`, or for a -1 before
    the source's own last size (`view(-1, L)` with `L = opts.size(-1)`) the names the source's sizes were
    unpacked into before it (`B, D, N, L = opts.size()`), all but the last."""
    first, last = _sizes(flatten)
    rest = isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub) \
        and isinstance(first.operand, ast.Constant) and first.operand.value == 1
    if not rest:
        return _factors(first)
    source = flatten.func.value
    if not isinstance(source, ast.Name):
        return None
    names = _unpacked_names(source, flatten, ctx)
    if names is None or not _last_size_of(last, source, names[-1], flatten, ctx):
        return None
    return names[:-1]


def _unpacked_names(source: ast.Name, at: ast.Call, ctx) -> list[str] | None:
    """`B, D, N, L` of the latest `B, D, N, L = source.size()` in this function before `at`, when `source` was not
    rebound in between."""
    scope, dumped = ctx.scope_of(at), ast.dump(source)
    unpacks = [a for a in ctx.in_scope(scope, (ast.Assign,)) if a.lineno < at.lineno
               and isinstance(a.targets[-1], ast.Tuple) and (owner := shape_owner(a.value)) is not None
               and ast.dump(owner) == dumped]
    if not unpacks:
        return None
    unpack = max(unpacks, key=lambda a: a.lineno)
    bound = [v.lineno for v in ctx.values_of(source, at=at) if getattr(v, "lineno", 0) < at.lineno]
    if any(unpack.lineno < line < at.lineno for line in bound):
        return None
    names = [e.id for e in unpack.targets[-1].elts if isinstance(e, ast.Name)]
    return names if len(names) == len(unpack.targets[-1].elts) else None


def _last_size_of(size: ast.expr, source: ast.Name, unpacked: str, at: ast.Call, ctx) -> bool:
    """`L` unpacked as the source's last size, `opts.size(-1)`, or a name holding that read."""
    if isinstance(size, ast.Name) and size.id == unpacked:
        return True
    if isinstance(size, ast.Name):
        size = value_before(size, at, ctx)
    return size is not None and dim_index(size, ast.dump(source)) == -1


def _sizes(call: ast.Call) -> list[ast.expr]:
    args = call.args
    if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
        return list(args[0].elts)
    return [] if any(isinstance(a, ast.Starred) for a in args) else list(args)


def _factors(size: ast.expr) -> list[str]:
    if isinstance(size, ast.BinOp) and isinstance(size.op, ast.Mult):
        return _factors(size.left) + _factors(size.right)
    return [short_size(size)]
