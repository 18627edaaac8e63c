"""The symbolic shape of a tensor, as the code spells its sizes, and whether a view keeps the axes in order
(MLD040).

A shape is the list of size expressions the code wrote (compared as source text), known from
`B, T, C = x.shape` or from a constructor `x = torch.zeros(H, B, T, D)` (item assignments `x[i] = ...`
keep it). A view or reshape only regroups neighbouring axes; a size that names an axis further along
than the axes consumed so far moves that axis, which only a transpose or permute can do.
"""

from __future__ import annotations

import ast
from itertools import combinations

CONSTRUCTORS = {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.full",
                "torch.zeros_like", "torch.FloatTensor", "torch.Tensor"}
NEW_METHODS = {"new_zeros", "new_ones", "new_empty", "new_full"}
Shape = list[ast.expr]
REST = ast.Constant(value=...)  # the axes after the known ones, in a shape known only at its start


def size_key(expr: ast.expr) -> str:
    """The source text of a size: `B` unpacked (a store) and `B` read are the same size."""
    return ast.unparse(expr)


def constructed_shape(value: ast.expr, ctx) -> Shape | None:
    """The sizes a constructor call lists: `torch.zeros(H, B, T, D, device=d)`, `x.new_zeros((B, T))`."""
    if not isinstance(value, ast.Call):
        return None
    name = ctx.call_name(value)
    if name in CONSTRUCTORS and name not in {"torch.zeros_like"}:
        sizes = value.args[:1] if name == "torch.full" else value.args
    elif name is None and ctx.method_name(value) in NEW_METHODS:
        sizes = value.args[:1] if ctx.method_name(value) == "new_full" else value.args
    else:
        return None
    if len(sizes) == 1 and isinstance(sizes[0], ast.Tuple | ast.List):
        sizes = sizes[0].elts
    if len(sizes) < 2 or any(isinstance(s, ast.Starred) for s in sizes):
        return None
    if any(isinstance(s, ast.Constant) and not isinstance(s.value, int) for s in sizes):
        return None  # torch.FloatTensor([0.5, 0.25]) holds values, not sizes
    return list(sizes)


def leading_shape(first: ast.expr) -> Shape:
    """The shape of a module's output on an input whose first axis is `first`: modules keep the first axis
    (batch, or sequence for seq-first layers) and the rest is not known."""
    return [first, REST]


def moves_axes(shape: Shape, sizes: list[ast.expr]) -> bool:
    """Whether `view(*sizes)` on a tensor of `shape` needs an axis taken out of its place (from either end,
    up to the first size not known: -1, an expression)."""
    if _moves_from_left(shape, sizes):
        return True
    return shape[-1] is not REST and _moves_from_left(shape[::-1], sizes[::-1])


def _moves_from_left(shape: Shape, sizes: list[ast.expr]) -> bool:
    keys = [size_key(s) if s is not REST else None for s in shape]
    position = 0
    for index, size in enumerate(sizes):
        if position >= len(keys) or keys[position] is None:
            return False
        key = size_key(size)
        if keys[position] == key:
            position += 1
            continue
        if isinstance(size, ast.Constant) and size.value == 1:
            continue  # a new axis of size one moves nothing
        factors = _factors(size)
        if len(factors) > 1 and sorted(factors) == sorted(k for k in keys[position:position + len(factors)] if k):
            position += len(factors)  # B * T merges neighbours
            continue
        # an axis named here that sits behind axes not placed yet has been moved
        later = [i for i in range(position + 1, len(keys)) if keys[i] == key]
        if later:
            return not all(_maybe_one(s) for s in shape[position:later[0]])
        # or the axis due here comes later, behind a size that is none of the tensor's axes
        return not _maybe_one(shape[position]) and keys[position] in {size_key(s) for s in sizes[index + 1:]}
    return False


def _factors(size: ast.expr) -> list[str]:
    if isinstance(size, ast.BinOp) and isinstance(size.op, ast.Mult):
        return _factors(size.left) + _factors(size.right)
    return [size_key(size)]


def _maybe_one(size: ast.expr) -> bool:
    """An axis that may be of size one (a literal 1, or unpacked into `_`): dropping it moves nothing."""
    if isinstance(size, ast.Constant):
        return size.value == 1
    return isinstance(size, ast.Name) and size.id.startswith("_")


def batch_axis_of(size: ast.expr, ctx, depth: int = 2) -> ast.expr | None:
    """The tensor whose batch axis `size` is: `x.size(0)`, `x.shape[0]`, `x.size()[0]`, or a name assigned one."""
    for _ in range(depth):
        if isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute) and size.func.attr == "size" \
                and len(size.args) == 1 and _is_zero(size.args[0]):
            return size.func.value
        if isinstance(size, ast.Subscript) and _is_zero(size.slice):
            owner = size.value
            if isinstance(owner, ast.Attribute) and owner.attr == "shape":
                return owner.value
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Attribute) and owner.func.attr == "size" \
                    and not owner.args:
                return owner.func.value
        if not isinstance(size, ast.Name):
            return None
        values = ctx.values_of(size, at=size)
        if len(values) != 1:
            return None
        size = values[0]
    return None


def _is_zero(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0 and not isinstance(expr.value, bool)


def shape_owner(expr: ast.expr) -> ast.expr | None:
    """x for `x.shape` and `x.size()`."""
    if isinstance(expr, ast.Attribute) and expr.attr == "shape":
        return expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size" \
            and not expr.args and not expr.keywords:
        return expr.func.value
    return None


def dim_index(size: ast.expr, tensor: str) -> int | None:
    """`x.size(1)`, `x.size(dim=1)`, `x.shape[1]`, `x.size()[1]` -> 1 when x is `tensor`."""
    if isinstance(size, ast.Subscript):
        owner, index = shape_owner(size.value), size.slice
    elif isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute) and size.func.attr == "size":
        values = list(size.args) + [k.value for k in size.keywords if k.arg == "dim"]
        owner, index = size.func.value, values[0] if len(values) == 1 else None
    else:
        return None
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and isinstance(index.operand, ast.Constant):
        index = ast.Constant(-index.operand.value) if isinstance(index.operand.value, int) else None
    number = index.value if isinstance(index, ast.Constant) else None
    ok = owner is not None and isinstance(number, int) and not isinstance(number, bool)
    return number if ok and ast.dump(owner) == tensor else None


def inverted_dims(tensor: ast.expr, sizes: list[ast.expr]) -> bool:
    source = ast.dump(tensor)
    indices = [i for i in (dim_index(s, source) for s in sizes) if i is not None]
    # same sign compares directly; dim 0 always comes before a negative index
    return any((a >= 0) == (b >= 0) and a > b or (a < 0 and b == 0) for a, b in combinations(indices, 2))


def axes_of(expr: ast.expr, source: str) -> set[int] | None:
    """{2, 3} for `x.shape[2] * x.shape[3]`; None when anything else is part of the size."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        left, right = axes_of(expr.left, source), axes_of(expr.right, source)
        return left | right if left is not None and right is not None else None
    index = dim_index(expr, source)
    return {index} if index is not None else None


def shape_unpack(assign: ast.Assign) -> tuple[list[str], str] | None:
    """`B, T, C = x.shape` / `= x.size()` -> (['B', 'T', 'C'], dump of x)."""
    target, owner = assign.targets[-1], shape_owner(assign.value)
    if owner is None or not isinstance(target, ast.Tuple) or len(target.elts) < 2:
        return None
    names = [e.id for e in target.elts if isinstance(e, ast.Name)]
    return (names, ast.dump(owner)) if len(names) == len(target.elts) else None


def _is_rest(size: ast.expr) -> bool:
    return isinstance(size, ast.UnaryOp) and isinstance(size.op, ast.USub) and isinstance(size.operand, ast.Constant) \
        and size.operand.value == 1


def axis_behind_rest(tensor: ast.expr, sizes: list[ast.expr]) -> bool:
    """`x.view(x.size(0), -1, x.size(1))` on (B, C, H, W): the sizes before the -1 keep axes 0..p-1 in place, the
    -1 starts gathering at axis p, and a size after it names axis p again: that axis is moved behind the ones
    the -1 gathers, which a view cannot do ((B, C, H*W) read as (B, H*W, C) mixes channels and positions)."""
    rests = [i for i, s in enumerate(sizes) if _is_rest(s)]
    if len(rests) != 1:
        return False
    source, p = ast.dump(tensor), rests[0]
    if [dim_index(s, source) for s in sizes[:p]] != list(range(p)):
        return False
    return any(dim_index(s, source) == p for s in sizes[p + 1:])
