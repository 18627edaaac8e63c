"""Whether what a local epoch function hands back is a plain number (MLD032's caller side).

`train_loss, train_acc = train(...)` then `history.append(train_loss)`: the name says loss, but an epoch
function that sums `loss.item()` and returns `total / count` (or a meter's `losses.avg` fed with
`loss.item()`) returns a number, and keeping it keeps no graph. The returned value is read through what
the helper's names are: tuple-unpacked constants (`total, n = 0.0, 0`), `+=` of numbers, a running
average's attribute whose every update was given a number, a number divided by a count, and the
returns of the helpers it calls in turn (`loss, n_correct, n_word = cal_performance(...)`), and a list
started empty whose every append gets a number (`losses.append(loss.item())`).
"""

from __future__ import annotations

import ast

from .accum_losses import _numeric, detached, is_loss_value, local_callee, loss_named
from .accum_meters import UPDATES
from .graph import latest_value, module_index

DIVISIONS = (ast.Div, ast.FloorDiv)
COMPREHENSIONS = (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)


def returns_number(name: ast.Name, ctx, depth: int = 6) -> bool:
    """`name` is bound (directly or by unpacking) to a call of a local function whose returned value at that
    place is a number."""
    value = latest_value(name, ctx)
    if not isinstance(value, ast.Call):
        return False
    if local_callee(value, ctx) is None:
        return _wrapped_step_returns_number(name, value, ctx, depth)
    return _call_returns_number(value, _position(name, value, ctx), ctx, depth)


def _wrapped_step_returns_number(name: ast.Name, call: ast.Call, ctx, depth: int) -> bool:
    """`(loss, lr), elapsed = timed(train_step)`: a wrapper (a timer, a retry loop) runs a local step function
    handed to it and gives back its result beside its own; `name` sits in the nested tuple of that result."""
    step = call.args[0] if call.args else None
    stmt = ctx.parent(call)
    if not isinstance(step, ast.Name) or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 \
            or not isinstance(stmt.targets[0], ast.Tuple):
        return False
    inner = next((e for e in stmt.targets[0].elts if isinstance(e, ast.Tuple | ast.List)
                  and any(isinstance(n, ast.Name) and n.id == name.id for n in e.elts)), None)
    if inner is None:
        return False
    position = next(i for i, n in enumerate(inner.elts) if isinstance(n, ast.Name) and n.id == name.id)
    func = ctx.functions.get(step.id) or _nested_def(step, ctx)
    return func is not None and _returns_number(func, position, ctx, depth)


def _nested_def(name: ast.Name, ctx) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A function defined inside the function (or loop body) that reads `name`."""
    outer = ctx.enclosing(name, (ast.FunctionDef, ast.AsyncFunctionDef))
    if outer is None:
        return None
    return next((n for n in ast.walk(outer) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                 and n is not outer and n.name == name.id), None)


def _call_returns_number(call: ast.Call, position: int | None, ctx, depth: int) -> bool:
    func = local_callee(call, ctx)
    return func is not None and _returns_number(func, position, ctx, depth)


def _returns_number(func: ast.AST, position: int | None, ctx, depth: int) -> bool:
    if depth <= 0:
        return False
    returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
    if position is not None:
        returns = [r.elts[position] if isinstance(r, ast.Tuple) and position < len(r.elts) else r for r in returns]
    return bool(returns) and all(number_valued(r, ctx, depth - 1) for r in returns)


def _position(name: ast.Name, value: ast.AST, ctx) -> int | None:
    stmt = ctx.parent(value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple | ast.List):
        names = [e.id if isinstance(e, ast.Name) else None for e in stmt.targets[0].elts]
        return names.index(name.id) if name.id in names else None
    return None


def number_valued(expr: ast.AST, ctx, depth: int) -> bool:
    if depth <= 0:
        return False
    if isinstance(expr, ast.Constant) or detached(expr, ctx):
        return True
    if isinstance(expr, ast.Name):
        return _name_is_number(expr, ctx, depth)
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, DIVISIONS) and not (loss_named(expr.right) or is_loss_value(expr.right, ctx)):
            return number_valued(expr.left, ctx, depth)  # a running average: a number over a count
        return number_valued(expr.left, ctx, depth) and number_valued(expr.right, ctx, depth)
    if isinstance(expr, ast.UnaryOp):
        return number_valued(expr.operand, ctx, depth)
    if isinstance(expr, ast.Tuple | ast.List):
        return bool(expr.elts) and all(number_valued(e, ctx, depth) for e in expr.elts)
    if isinstance(expr, COMPREHENSIONS):
        element = expr.value if isinstance(expr, ast.DictComp) else expr.elt
        return _built_of_numbers(element, _assigned_name(expr, ctx), ctx, depth)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return _meter_of_numbers(expr.value, ctx, depth)
    if isinstance(expr, ast.Call) and local_callee(expr, ctx) is not None:
        return _call_returns_number(expr, None, ctx, depth)
    return _numeric(expr, ctx, 1)


def _name_is_number(name: ast.Name, ctx, depth: int) -> bool:
    value = latest_value(name, ctx)
    if value is None or isinstance(value, ast.Name) and value.id == name.id:
        return False
    position = _position(name, value, ctx)
    if position is not None and isinstance(value, ast.Tuple | ast.List) and position < len(value.elts):
        value = value.elts[position]  # total, count = 0.0, 0
    elif position is not None and isinstance(value, ast.Call):
        if not _call_returns_number(value, position, ctx, depth):
            return False
        value = None
    if isinstance(value, ast.List) and not value.elts:
        return _list_of_numbers(name, ctx, depth)  # `losses = []`, then `losses.append(loss.item())`
    if _empty_mapping(value) and (stores := _item_stores(name, ctx)):
        return _mapping_of_numbers(name, stores, ctx, depth)  # `info = MetricsTracker()`, `info["loss"] = l.item()`
    if value is not None and not number_valued(value, ctx, depth - 1):
        return False
    more = module_index(ctx)["augmented"].get((ctx.scope_of(name), name.id), ())
    return all(number_valued(a.value, ctx, depth - 1) for a in more)


def _list_of_numbers(name: ast.Name, ctx, depth: int) -> bool:
    """A list started empty whose every `append(...)` in the function gets a number (`losses.append(loss.item())`)
    and that nothing else fills (`extend`, `insert`, an item assigned)."""
    scope = ctx.scope_of(name)
    fills = [c for c in ctx.in_scope(scope, (ast.Call,)) if isinstance(c.func, ast.Attribute)
             and isinstance(c.func.value, ast.Name) and c.func.value.id == name.id
             and c.func.attr in ("append", "extend", "insert", "__setitem__")]
    stores = [t for t in ctx.in_scope(scope, (ast.Subscript,)) if isinstance(t.ctx, ast.Store)
              and isinstance(t.value, ast.Name) and t.value.id == name.id]
    return bool(fills) and not stores and all(
        c.func.attr == "append" and len(c.args) == 1 and number_valued(c.args[0], ctx, depth - 1) for c in fills)


def _meter_of_numbers(meter: ast.Name, ctx, depth: int) -> bool:
    """`losses.avg` of `losses = AverageMeter()` whose every `losses.update(...)` in the function gets a number."""
    if not isinstance(latest_value(meter, ctx), ast.Call):
        return False
    scope = ctx.scope_of(meter)
    updates = [c for c in ctx.in_scope(scope, (ast.Call,)) if isinstance(c.func, ast.Attribute)
               and c.func.attr in UPDATES and isinstance(c.func.value, ast.Name) and c.func.value.id == meter.id]
    return bool(updates) and all(c.args and number_valued(c.args[0], ctx, depth - 1) for c in updates)


def _assigned_name(expr: ast.AST, ctx) -> str | None:
    stmt = ctx.parent(expr)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _built_of_numbers(element: ast.AST, own: str | None, ctx, depth: int) -> bool:
    """A comprehension's element is a number: `{k: v.item() / n for ...}`, also when it adds the entry the same name
    held before (bonito's `losses = {k: v.item() / n if losses is None else v.item() / n + losses[k] ...}`, blind
    split 27): if every new part is a number, so is every earlier entry."""
    if isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) and element.value.id == own:
        return True
    if isinstance(element, ast.IfExp):
        return _built_of_numbers(element.body, own, ctx, depth) and _built_of_numbers(element.orelse, own, ctx, depth)
    if isinstance(element, ast.BinOp) and isinstance(element.op, ast.Add):
        return _built_of_numbers(element.left, own, ctx, depth) and _built_of_numbers(element.right, own, ctx, depth)
    return number_valued(element, ctx, depth)


def _empty_mapping(value: ast.AST | None) -> bool:
    """`{}`, `dict()`, or a call of a class with no arguments (icefall's `MetricsTracker()`, a defaultdict)."""
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and not value.args and not value.keywords and (
        isinstance(value.func, ast.Name) and (value.func.id == "dict" or value.func.id[:1].isupper()))


def _item_stores(name: ast.Name, ctx) -> list[ast.Assign | ast.AugAssign]:
    """The assignments of the function that store an item of `name` (`info["loss"] = ...`, `info[k] += ...`)."""
    return [a for a in ctx.in_scope(ctx.scope_of(name), (ast.Assign, ast.AugAssign)) if any(
        isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name.id
        for t in (a.targets if isinstance(a, ast.Assign) else [a.target]))]


def _mapping_of_numbers(name: ast.Name, stores: list, ctx, depth: int) -> bool:
    """A mapping started empty whose every item stored in the function is a number (`info["loss"] =
    loss.detach().cpu().item()`) and that no method fills: icefall's MetricsTracker of every recipe, 164 findings."""
    fills = [c for c in ctx.in_scope(ctx.scope_of(name), (ast.Call,)) if isinstance(c.func, ast.Attribute)
             and isinstance(c.func.value, ast.Name) and c.func.value.id == name.id
             and c.func.attr in ("update", "setdefault", "__setitem__")]
    return not fills and all(number_valued(a.value, ctx, depth - 1) for a in stores)
