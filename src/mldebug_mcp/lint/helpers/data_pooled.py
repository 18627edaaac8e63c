"""Statistics learned from the training and held-out parts pooled together (MLD051).

`mean = np.mean(np.concatenate([train[:, j], test[:, j]]))`, then `train = (train - mean) / std` and the same
for `test`: the normalisation is fitted on the test rows too. The parts are told by their names (a training
part and a test/validation part); the pooled value is concatenated along the rows (np.concatenate, np.vstack,
torch.cat, pd.concat), directly or through one name, and its statistic (mean/std/var/min/max over every row,
or a preprocessor's fit) is what normalises: a name later subtracted or divided by.
"""

from __future__ import annotations

import ast
import re

from .data import PREPROCESSOR_WORDS, part_named, preprocessor
from .data_fit_calls import fitted_arguments

POOLING = {"numpy.concatenate", "numpy.vstack", "numpy.row_stack", "torch.cat", "torch.concat", "torch.vstack",
           "pandas.concat"}
STATISTICS = {"mean", "std", "var", "min", "max", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "amin", "amax",
              "median", "nanmedian"}


def pooled_statistics(ctx) -> list[tuple[ast.Call, str]]:
    """(statistic or fit call, pooled expression) for each function's first statistic of pooled parts."""
    if not (ctx.has_text("train") and any(ctx.has_text(w) for w in ("test", "val", "dev"))):
        return []
    found, seen = [], set()
    pools = [c for c in ctx.by_type.get(ast.Call, ()) if ctx.call_name(c) in POOLING]
    for call in sorted(pools, key=lambda c: (c.lineno, c.col_offset)):
        if not _pools_train_and_held_out(call):
            continue
        for user in _local_fits(call, ctx):
            scope = ctx.scope_of(user)
            if id(scope) not in seen:
                seen.add(id(scope))
                found.append((user, ast.unparse(call)))
        for user in sorted(_statistic_users(call, ctx), key=lambda c: c.lineno):
            scope = ctx.scope_of(user)
            if id(scope) not in seen and (_scaler(user, ctx) or _normalises(user, ctx)):
                seen.add(id(scope))
                found.append((user, ast.unparse(call)))
                break
    return found


def _pools_train_and_held_out(call: ast.Call) -> bool:
    if not call.args or not isinstance(call.args[0], ast.List | ast.Tuple):
        return False
    if not _along_rows(call, call.args[1:]):
        return False  # side by side (features of one row), not more rows
    parts = [part_named(_root(part)) for part in call.args[0].elts]
    # a held-out part pooled with one that is not (named so, or not named at all: `[self.rows, self.X_val]`)
    return "held out" in parts and any(p != "held out" for p in parts)


def _root(expr: ast.expr) -> str:
    while isinstance(expr, ast.Attribute | ast.Subscript | ast.Call):
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return expr.attr
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else ""


def _statistic_users(pooled: ast.Call, ctx) -> list[ast.Call]:
    """Statistic or fit calls over the pooled rows: on the expression itself, or on the name it is kept in
    (through a method chain: `pd.concat([...]).reset_index(drop=True)`, `torch.cat([...]).numpy()`)."""
    pooled = _chained(pooled, ctx)
    parent = ctx.parent(pooled)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and (name := _kept_in(parent.targets[0])):
        scope = ctx.scope_of(pooled)
        return [c for c in ctx.in_scope(scope, (ast.Call,)) if c.lineno > pooled.lineno
                and any(_kept_in(d) == name for d in _data_of(c, ctx))]
    if isinstance(parent, ast.Call) and any(d is pooled for d in _data_of(parent, ctx)):
        return [parent]
    return []


def _kept_in(target: ast.expr) -> str | None:
    """The name a value is kept in: `pooled`, or `self.pooled` (an attribute of the instance)."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return "self." + target.attr
    return None


def _chained(expr: ast.expr, ctx) -> ast.expr:
    """The outermost value of a method chain on `expr` that keeps its rows (`.values`, `.reset_index()`)."""
    while True:
        parent = ctx.parent(expr)
        if isinstance(parent, ast.Attribute) and parent.value is expr and parent.attr not in STATISTICS \
                and parent.attr not in {"fit", "fit_transform"} or isinstance(parent, ast.Call) and parent.func is expr:
            expr = parent
        else:
            return expr


def _local_fits(pooled: ast.Call, ctx) -> list[ast.Call]:
    """`mu, sd = column_stats(np.concatenate([train, test]))`: a helper of this file learns statistics from it."""
    parent = ctx.parent(pooled)
    if isinstance(parent, ast.Call) and any(a is pooled for a in fitted_arguments(parent, ctx)):
        return [parent]
    return []


def _data_of(call: ast.Call, ctx) -> list[ast.expr]:
    """What a statistic over every row (or a preprocessor's fit) reads: `np.mean(x)`, `x.mean(0)`, `sc.fit(x)`."""
    method = ctx.method_name(call)
    if method in {"fit", "fit_transform"}:
        return call.args[:1]
    if method not in STATISTICS or not isinstance(call.func, ast.Attribute):
        return []
    name = ctx.call_name(call) or ""
    args = list(call.args)
    if name.startswith(("numpy.", "torch.")):
        data, args = args[:1], args[1:]
    elif name:
        return []
    else:
        data = [call.func.value]
    return data if _along_rows(call, args) else []  # per row or along another axis: not the rows pooled


def _along_rows(call: ast.Call, positional: list[ast.expr]) -> bool:
    """The call's axis (`axis=`/`dim=`, else the first of `positional`) is absent, 0 or None: along the rows."""
    axis = next((k.value for k in call.keywords if k.arg in {"axis", "dim"}), positional[0] if positional else None)
    return axis is None or isinstance(axis, ast.Constant) and axis.value in (0, None)


def _normalises(stat: ast.Call, ctx) -> bool:
    """The statistic is kept in a name that the function later subtracts or divides by."""
    parent = ctx.parent(stat)
    while isinstance(parent, ast.Call | ast.Attribute | ast.BinOp | ast.Tuple):
        parent = ctx.parent(parent)
    if not isinstance(parent, ast.Assign):
        return False
    names = {n.id for t in parent.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    for op in ctx.in_scope(ctx.scope_of(stat), (ast.BinOp,)):
        if op.lineno > stat.lineno and isinstance(op.op, ast.Sub | ast.Div) and any(
                isinstance(n, ast.Name) and n.id in names for n in ast.walk(op.right)):
            return True
    return False


def _scaler(call: ast.Call, ctx) -> bool:
    """A preprocessor's fit that learns statistics of values; an encoder fitted on every part's categories
    (`LabelEncoder().fit(pd.concat([train.y, test.y]))`) only learns their names."""
    name = preprocessor(call, ctx) or _named_preprocessor(call, ctx)
    return name is not None and not name.endswith(("Encoder", "Binarizer"))


def _named_preprocessor(call: ast.Call, ctx) -> str | None:
    if ctx.method_name(call) not in {"fit", "fit_transform"} or ctx.call_name(call) is not None:
        return None
    receiver = call.func.value
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return ast.unparse(receiver) if PREPROCESSOR_WORDS.search(name.lower()) else None
