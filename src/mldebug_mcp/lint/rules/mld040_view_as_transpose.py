import ast
from collections.abc import Iterator
from itertools import combinations

from ..context import ModuleContext
from ..rule import Hit, Rule

RESHAPES = {"view", "reshape"}
# any of these earlier in the same expression means the axes were already reordered
REORDERS = {"transpose", "permute", "movedim", "moveaxis", "swapaxes", "swapdims", "t", "T", "mT", "mH", "H"}


class ViewAsTranspose(Rule):
    """What it does: flags `.view(...)`/`.reshape(...)` whose sizes are the tensor's own dimensions
    in a different order: `x.view(x.size(1), x.size(0))`, or `B, T, C = x.shape` then
    `x.view(B, C, T)`. Merges and splits (`x.view(B * T, C)`, `x.view(B, T, H, C // H)`) and
    reshapes of an already transposed or permuted tensor are not flagged.

    Why is this bad: view and reshape keep the memory order and only relabel the shape, so the
    result has the intended shape but its elements are scrambled across positions or samples.
    Nothing errors, and a network usually still trains by learning to ignore the mixed-in data.
    """

    code = "MLD040"
    name = "view-as-transpose"
    category = "shapes"
    severity = "error"
    message = ".{method}() lists the tensor's own dimensions in a new order: it reinterprets memory, not a transpose"
    why = "view/reshape keep memory order, so the shape looks right but values are mixed across positions or samples."
    fix = "Swap axes with .transpose(i, j) or .permute(...); add .contiguous() if a later .view needs it."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.Call,)
    requires_text = ('view', 'reshape')  # skip modules that cannot contain the pattern
    BAD = "def to_channels_first(x):\n    B, T, C = x.shape\n    return x.view(B, C, T)\n"
    GOOD = "def to_channels_first(x):\n    B, T, C = x.shape\n    return x.transpose(1, 2)\n"

    def __init__(self) -> None:
        self._ctx: ModuleContext | None = None
        self._unpacks: list[tuple[ast.Assign, list[str], str]] = []

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node.func, ast.Attribute) and node.func.attr in RESHAPES and ctx.call_name(node) is None:
            tensor, sizes, method = node.func.value, _sizes(node.args, node.keywords), node.func.attr
        elif ctx.call_name(node) == "torch.reshape" and len(node.args) == 2:
            tensor, sizes, method = node.args[0], _sizes(node.args[1:], []), "reshape"
        else:
            return
        if not sizes or _reordered_before(tensor):
            return
        if _inverted_dims(tensor, sizes) or self._permuted_unpack(node, tensor, sizes, ctx):
            yield Hit(node, self.message.format(method=method))

    def _permuted_unpack(self, call: ast.Call, tensor: ast.expr, sizes: list[ast.expr], ctx: ModuleContext) -> bool:
        names = [s.id for s in sizes if isinstance(s, ast.Name)]
        if len(names) != len(sizes) or len(set(names)) != len(names):
            return False
        scope, source = ctx.scope_of(call), ast.dump(tensor)
        # the latest `B, T, C = x.shape` before this call, in the same scope, on the same tensor
        candidates = [(a, n) for a, n, s in self._unpacks_of(ctx)
                      if s == source and a.lineno < call.lineno and ctx.scope_of(a) is scope]
        if not candidates:
            return False
        unpack, unpacked = max(candidates, key=lambda c: c[0].lineno)
        if sorted(unpacked) != sorted(names) or unpacked == names:
            return False
        # the tensor reassigned in between (x = x.transpose(1, 2)) may already have the new shape
        return not any(unpack.lineno < getattr(v, "lineno", 0) < call.lineno for v in ctx.values_of(tensor, at=call))

    def _unpacks_of(self, ctx: ModuleContext) -> list[tuple[ast.Assign, list[str], str]]:
        if self._ctx is not ctx:  # built once per module from the index, not by walking
            found = ((a, _shape_unpack(a)) for a in ctx.by_type.get(ast.Assign, ()))
            self._ctx, self._unpacks = ctx, [(a, *u) for a, u in found if u]
        return self._unpacks


def _sizes(args: list[ast.expr], keywords: list[ast.keyword]) -> list[ast.expr]:
    if not args:
        args = [k.value for k in keywords if k.arg in {"shape", "size"}]
    if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
        return list(args[0].elts)
    return [] if any(isinstance(a, ast.Starred) for a in args) else list(args)


def _reordered_before(tensor: ast.expr) -> bool:
    return any(isinstance(node, ast.Attribute) and node.attr in REORDERS for node in ast.walk(tensor))


def _shape_owner(expr: ast.expr) -> ast.expr | None:
    """x for `x.shape` and `x.size()`."""
    if isinstance(expr, ast.Attribute) and expr.attr == "shape":
        return expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size" \
            and not expr.args and not expr.keywords:
        return expr.func.value
    return None


def _dim_index(size: ast.expr, tensor: str) -> int | None:
    """`x.size(1)`, `x.size(dim=1)`, `x.shape[1]`, `x.size()[1]` -> 1 when x is `tensor`."""
    if isinstance(size, ast.Subscript):
        owner, index = _shape_owner(size.value), size.slice
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


def _inverted_dims(tensor: ast.expr, sizes: list[ast.expr]) -> bool:
    source = ast.dump(tensor)
    indices = [i for i in (_dim_index(s, source) for s in sizes) if i is not None]
    # same sign compares directly; dim 0 always comes before a negative index
    return any((a >= 0) == (b >= 0) and a > b or (a < 0 and b == 0) for a, b in combinations(indices, 2))


def _shape_unpack(assign: ast.Assign) -> tuple[list[str], str] | None:
    """`B, T, C = x.shape` / `= x.size()` -> (['B', 'T', 'C'], dump of x)."""
    target, owner = assign.targets[-1], _shape_owner(assign.value)
    if owner is None or not isinstance(target, ast.Tuple) or len(target.elts) < 2:
        return None
    names = [e.id for e in target.elts if isinstance(e, ast.Name)]
    return (names, ast.dump(owner)) if len(names) == len(target.elts) else None
