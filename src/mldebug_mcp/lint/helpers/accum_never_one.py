"""An accumulation step that also requires the window to be longer than one micro-batch (MLD034).

`if k > 1 and step % k == 0: optimizer.step()` with no step in the `else`: accumulation off (k = 1, the usual
default) means no step at all, and training silently does nothing. The guard meant to skip the modulo test
when accumulation is off skips the update with it.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import calls_in_order
from .optim_values import optimizer_step


def steps_only_past_one(node: ast.If, ctx: ModuleContext) -> ast.Compare | None:
    """The comparison `count > 1` (or `!= 1`, `>= 2`) when `node` tests it and `... % count ...` together and its
    body steps an optimiser that its `else` does not (the fix removes that comparison); else None."""
    test = node.test
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return None
    divisors = {ast.dump(sub.right) for value in test.values for sub in ast.walk(value)
                if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod)}
    compare = next((c for c in test.values if isinstance(c, ast.Compare) and len(c.ops) == 1
                    and _beyond_one(c.ops[0], c.comparators[0]) and ast.dump(c.left) in divisors), None)
    if compare is None:
        return None
    if not any(optimizer_step(c, ctx) for c in calls_in_order(node.body)):
        return None
    if any(optimizer_step(c, ctx) for c in calls_in_order(node.orelse)):
        return None
    return compare


def _beyond_one(op: ast.cmpop, bound: ast.expr) -> bool:
    if not (isinstance(bound, ast.Constant) and type(bound.value) is int):
        return False
    return (isinstance(op, ast.Gt) and bound.value == 1) or (isinstance(op, ast.NotEq) and bound.value == 1) or (
        isinstance(op, ast.GtE) and bound.value == 2)
