"""Local functions that learn statistics from the data they are handed (MLD051).

`data, scaler = normalize_dataset(data, "std")` or `df_cat, df_num = self.prep_input(X)`: the fit is inside
the helper (or a helper it calls), and the caller splits what comes back. A helper fits parameter i when it
computes whole-data statistics of it that come back as a normaliser (`mean = data.mean(0)` and
`std = data.std(0)`, or `data.min()` with `data.max()`), or hands it to another local helper that fits it.
A helper whose own scikit-learn fit of its parameter is returned is reported at that fit (data_handoff);
these are the shapes it cannot see, reported where the caller hands over the unsplit data.
"""

from __future__ import annotations

import ast

from .accum_losses import local_callee
from .data import FITS, _mentions, column_statistics, preprocessor

# statistics that together make a normaliser: centre and scale, or range
STAT_PAIRS = ({"mean", "std"}, {"mean", "var"}, {"nanmean", "nanstd"}, {"min", "max"}, {"amin", "amax"},
              {"quantile", "median"})
# label encoders only learn the set of classes; encoding all labels up front is common and harmless
LABEL_ENCODERS = {"LabelEncoder", "LabelBinarizer", "MultiLabelBinarizer"}


def fitted_arguments(call: ast.Call, ctx) -> list[ast.expr]:
    """The arguments of `call` that the local function called learns statistics from (directly through
    statistics, or through a helper it calls); [] when it fits nothing or only by a scikit-learn fit of its own,
    which is reported inside it."""
    func = local_callee(call, ctx)
    if func is None:
        return []
    params = _params(func)
    positions = _fitting_positions(func, ctx, direct_ok=False)
    found = [a for i, a in enumerate(call.args) if i in positions and not isinstance(a, ast.Starred)]
    found += [k.value for k in call.keywords if k.arg in params and params.index(k.arg) in positions]
    return found


def _params(func: ast.AST) -> list[str]:
    return [a.arg for a in func.args.posonlyargs + func.args.args if a.arg not in {"self", "cls"}]


def _fitting_positions(func: ast.AST, ctx, direct_ok: bool, depth: int = 2) -> frozenset[int]:
    key = ("data-fit-positions", func, direct_ok, depth)
    return ctx.memo(key, lambda: _compute(func, ctx, direct_ok, depth))


def _compute(func: ast.AST, ctx, direct_ok: bool, depth: int) -> frozenset[int]:
    params = _params(func)
    if not params or not _may_fit(func, ctx, direct_ok, depth):
        return frozenset()  # cheap test first: most functions take no statistics and call no local helper
    if not direct_ok and _normalised_by_hand(func, ctx):
        return frozenset()  # `X = (X - X.mean(0)) / X.std(0)` is reported inside the helper (data_handoff)
    found = set()
    for index, name in enumerate(params):
        derived = _derived({name}, func, ctx)
        if _statistics_of(func, derived, ctx) or direct_ok and _sklearn_fit_of(func, derived, ctx):
            found.add(index)
        elif depth > 0 and _handed_on(func, derived, ctx, depth):
            found.add(index)
    return frozenset(found)


def _may_fit(func: ast.AST, ctx, direct_ok: bool, depth: int) -> bool:
    """The function calls a pair of statistics methods, a fit, or (with depth left) a local helper."""
    methods = set()
    for call in ctx.in_scope(func, (ast.Call,)):
        method = ctx.method_name(call)
        if method is not None:
            methods.add(method)
        if depth > 0 and local_callee(call, ctx) is not None:
            return True
    return any(pair <= methods for pair in STAT_PAIRS) or direct_ok and bool(methods & FITS)


def _normalised_by_hand(func: ast.AST, ctx) -> bool:
    return any(column_statistics(node) is not None and isinstance(ctx.parent(node), ast.Assign)
               for node in ctx.in_scope(func, (ast.BinOp,)))


def _derived(names: set[str], func: ast.AST, ctx) -> set[str]:
    """The parameter and the names assigned from expressions that mention it (`df = X[cols].copy()`)."""
    uses = ctx.memo(("data-fit-uses", func), lambda: {
        name: {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name)}
        for name, values in ctx.bindings.get(func, {}).items()})
    tainted = set(names)
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            if name not in tainted and used & tainted:
                tainted.add(name)
                changed = True
    return tainted


def _statistics_of(func: ast.AST, data: set[str], ctx) -> bool:
    """Two statistics of one pair (`data.mean(axis=0)` and `data.std(axis=0)`, `np.min(data)` and
    `np.max(data)`) taken across the rows of the data in this function (per-sample statistics, `axis=1`,
    `dim=-1`, normalise each row by itself and learn nothing from other rows)."""
    taken = set()
    for call in ctx.in_scope(func, (ast.Call,)):
        method = ctx.method_name(call)
        if method is None:
            continue
        receiver, name = call.func.value, ctx.call_name(call)
        if name is None and _mentions(receiver, data) and isinstance(receiver, ast.Name | ast.Subscript):
            if _across_rows(call, call.args[:1]):
                taken.add(method)  # data.mean(0), data[cols].std()
        elif name and name.startswith(("numpy.", "torch.")) and call.args \
                and isinstance(call.args[0], ast.Name | ast.Subscript) and _mentions(call.args[0], data):
            if _across_rows(call, call.args[1:2]):
                taken.add(method)  # np.mean(data, axis=0)
    return any(pair <= taken for pair in STAT_PAIRS)


def _across_rows(call: ast.Call, positional: list[ast.expr]) -> bool:
    """No axis (the whole array), or an axis that includes 0."""
    axis = next((k.value for k in call.keywords if k.arg in {"axis", "dim"}), positional[0] if positional else None)
    if axis is None:
        return True
    values = axis.elts if isinstance(axis, ast.Tuple | ast.List) else [axis]
    constants = [v.value for v in values if isinstance(v, ast.Constant)]
    return len(constants) < len(values) or 0 in constants


def _sklearn_fit_of(func: ast.AST, data: set[str], ctx) -> bool:
    for call in ctx.in_scope(func, (ast.Call,)):
        cls = preprocessor(call, ctx)
        if cls is not None and cls not in LABEL_ENCODERS and call.args and _mentions(call.args[0], data):
            return True
    return False


def _handed_on(func: ast.AST, data: set[str], ctx, depth: int) -> bool:
    """The data is handed to another local helper that fits it (`self.prep_numeric_cols(X[num_cols])`)."""
    for call in ctx.in_scope(func, (ast.Call,)):
        inner = local_callee(call, ctx)
        if inner is None or inner is func:
            continue
        positions = _fitting_positions(inner, ctx, direct_ok=True, depth=depth - 1)
        if any(i in positions and _mentions(a, data) for i, a in enumerate(call.args)):
            return True
    return False
