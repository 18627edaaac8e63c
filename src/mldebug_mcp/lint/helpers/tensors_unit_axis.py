"""A dim-less squeeze of a tensor shaped with a literal size-1 axis among sized-by-name axes (MLD041).

`t = t.view(n_classes, 1, 1).expand(n_classes, n_query, 1)` then `t.squeeze()`: the writer means to drop the
literal 1, but squeeze() also drops `n_query` whenever it is 1 (one query per class, one-shot), and the result
then broadcasts against a tensor that kept that axis (`y_hat.eq(t.squeeze())` compares (n, 1) with (n,) into an
(n, n) table). Reported when the squeezed value is compared element-wise (a squeeze handed to a loss is the rule's
main check).
"""

import ast

from ..context import ModuleContext

SHAPERS = {"view", "reshape", "expand", "repeat", "new_zeros", "new_ones"}
KEEPS = {"long", "float", "int", "double", "bool", "to", "cuda", "cpu", "contiguous", "detach", "clone"}
COMPARES = {"eq", "ne", "equal"}

UNIT_AXIS = ("squeeze() without a dim on a tensor shaped ({sizes}) on line {line}: it drops the literal 1 and also "
             "every sized axis that happens to be 1 ({names}), so the comparison broadcasts instead of "
             "matching; squeeze({axis})")


def unit_axis_squeeze(squeeze: ast.Call, ctx: ModuleContext) -> str | None:
    """The message when `squeeze` (a dim-less `x.squeeze()`) drops a literal unit axis of a shape also sized by
    names, and its result is compared element-wise."""
    tensor = squeeze.func.value if isinstance(squeeze.func, ast.Attribute) else None
    if not isinstance(tensor, ast.Name) or not _consumed(squeeze, ctx):
        return None
    values = ctx.values_of(tensor, at=squeeze)
    if not values:
        return None
    shaper = values[0]
    while isinstance(shaper, ast.Call) and isinstance(shaper.func, ast.Attribute) and shaper.func.attr in KEEPS:
        shaper = shaper.func.value
    if not (isinstance(shaper, ast.Call) and isinstance(shaper.func, ast.Attribute) and shaper.func.attr in SHAPERS):
        return None
    sizes = list(shaper.args[0].elts) if len(shaper.args) == 1 and isinstance(shaper.args[0], ast.Tuple) else shaper.args
    units = [i for i, s in enumerate(sizes) if isinstance(s, ast.Constant) and s.value == 1]
    named = [s for s in sizes if isinstance(s, ast.Name | ast.Attribute)]
    if len(units) != 1 or len(named) < 2 or len(sizes) < 3:
        return None
    return UNIT_AXIS.format(sizes=", ".join(ast.unparse(s) for s in sizes), line=shaper.lineno,
                            names=", ".join(ast.unparse(s) for s in named), axis=units[0])


def _consumed(squeeze: ast.Call, ctx: ModuleContext) -> bool:
    """The squeezed value (through dtype moves) is an operand of `a.eq(b)` or `a == b`."""
    node = squeeze
    parent = ctx.parent(node)
    while isinstance(parent, ast.Attribute) and parent.attr in KEEPS:
        node = ctx.parent(parent)
        parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute):
        return parent.attr in COMPARES  # t.squeeze().eq(y_hat); a flattening or reduction after it is harmless
    if isinstance(parent, ast.Compare):
        return any(isinstance(op, ast.Eq | ast.NotEq) for op in parent.ops)
    if isinstance(parent, ast.Call):  # y_hat.eq(t.squeeze()); a loss's argument is the rule's main check
        return isinstance(parent.func, ast.Attribute) and parent.func.attr in COMPARES
    return False
