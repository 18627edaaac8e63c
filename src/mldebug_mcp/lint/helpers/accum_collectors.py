"""Stores that keep a live loss without looking like a running sum (MLD032):

- a statistics collector handed to a step, `stat_col["loss"] = loss`: a collector keeps every value assigned to a
  key (its `__setitem__` appends), so each step's graph stays: built from a class whose `__setitem__` stores the
  value (here or in another file of the run), or handed in under a collector's name (`stat_col`, `collector`,
  `history`) in a run that defines such a class;
- a step's log dict whose "loss" entry is the live loss, unpacked from a helper's result and kept for the epoch's
  end (`log, out = self.step(x, y)`, then `self.training_step_outputs.append(log)`)."""

import ast
import re

from ..context import ModuleContext
from .accum_losses import detached, is_loss_value, local_callee
from .accum_meters import ANY_COLLECTOR, FACT, SETITEM, STORES, keeps_given
from .graph import latest_value

# names that say the object keeps every value it is given (a plain `metrics` or `stats` dict is overwritten)
COLLECTOR_NAME = re.compile(r"collect|histor|track|record|meter|accum|_col$")


def collector_store(node: ast.AST, ctx: ModuleContext) -> tuple[ast.expr, ast.expr] | None:
    """(the collector, the value) for `collector[key] = value` on a statistics collector a function is handed."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)):
        return None
    base = node.targets[0].value
    if not isinstance(base, ast.Name):
        return None
    func = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs} if func else set()
    if base.id in params and not ctx.values_of(base, at=node):
        if not COLLECTOR_NAME.search(base.id.lower()) or ctx.project is None:
            return None
        # named as a collector, in a run with a class that keeps every value set by key
        return (base, node.value) if ctx.project.kind_returned_by(ANY_COLLECTOR) else None
    built = ctx.constructed(base)
    return (base, node.value) if built is not None and _stores_by_key(built, ctx) else None


def _stores_by_key(built: str, ctx: ModuleContext) -> bool:
    simple = built.rsplit(".", 1)[-1]
    cls = ctx.classes.get(simple) if built == simple else None
    if cls is not None:
        return keeps_given(cls, SETITEM, ctx)
    told = ctx.project.kind_returned_by(f"{FACT}{simple}.{SETITEM}") if ctx.project is not None else None
    return told == STORES


def live_loss(value: ast.expr, ctx: ModuleContext) -> bool:
    """A name or call that holds a loss computed here, not turned into a number."""
    if isinstance(value, ast.Name):
        held = latest_value(value, ctx)
        return held is not None and not detached(held, ctx) and is_loss_value(held, ctx)
    return not detached(value, ctx) and is_loss_value(value, ctx)


def holds_loss_entry(operand: ast.expr, ctx: ModuleContext) -> bool:
    """`log` holds a dict whose "loss" entry is a live loss: written here, or returned (at this position of a
    returned tuple) by a method or function of this file (`log, out = self.step(x, y)`)."""
    if not isinstance(operand, ast.Name):
        return False
    value = latest_value(operand, ctx)
    if isinstance(value, ast.Dict):
        return _loss_entry(value, ctx)
    if not isinstance(value, ast.Call):
        return False
    func = local_callee(value, ctx)
    stmt = ctx.parent(value)
    if func is None or not isinstance(stmt, ast.Assign):
        return False
    position = _position(stmt, operand.id)
    if position == -1:
        return False
    for ret in ctx.in_scope(func, (ast.Return,)):
        returned = ret.value
        if position is not None:
            if not isinstance(returned, ast.Tuple) or position >= len(returned.elts):
                continue
            returned = returned.elts[position]
        if isinstance(returned, ast.Name):
            returned = latest_value(returned, ctx)
        if isinstance(returned, ast.Dict) and _loss_entry(returned, ctx):
            return True
    return False


def _position(stmt: ast.Assign, name: str) -> int | None:
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    if isinstance(target, ast.Tuple):
        names = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
        return names.index(name) if name in names else -1
    return None


def _loss_entry(literal: ast.Dict, ctx: ModuleContext) -> bool:
    for key, value in zip(literal.keys, literal.values, strict=False):
        named = isinstance(key, ast.Constant) and isinstance(key.value, str) and "loss" in key.value.lower() \
            and isinstance(value, ast.Name) and not detached(value, ctx)  # the key names it, whatever the value is called
        if named and any(is_loss_value(v, ctx) for v in ctx.values_of(value, at=value)):
            return True
    return False
