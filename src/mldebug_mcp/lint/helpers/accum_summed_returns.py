"""A training step of one file returns its loss with the graph; a loop of another file adds it to a total.

`def train(self, feed): ...; self.loss.backward(); ...; return self.loss, None, summary` in the model's file,
and `step_loss, _, summary = model.train(feed); loss += step_loss / n` in the script's: every step's graph is
kept by the running total. The fix goes in the step (return `self.loss.item()`), whose file does not show the
sum: the summing file tells the run (`sums:train` -> 'main.py:156/0', the line and the element summed), and
the step's return reads it (MLD032).
"""

from __future__ import annotations

import ast
import os

from .accum_losses import LIBRARIES, detached, live_positions, returns_backwarded
from .graph import latest_value
from .loops import LOOPS
from .optim_steps import local_callee

SUMS_FACT = "sums:"  # sums:<function or method name> -> '<file>:<line>/<element summed, or *>'


def summed_returns(ctx) -> dict[str, str]:
    """What this file tells the run: the functions of other files whose result (an element of it) a loop here
    adds to a running total without turning it into a number."""
    found: dict[str, str] = {}
    for node in ctx.by_type.get(ast.AugAssign, ()):
        if not isinstance(node.op, ast.Add) or ctx.enclosing(node, LOOPS) is None or detached(node.value, ctx):
            continue
        for operand in _names(node.value):
            value = operand if isinstance(operand, ast.Call) else latest_value(operand, ctx)
            if not isinstance(value, ast.Call) or detached(value, ctx) or local_callee(value, ctx) is not None:
                continue
            func = value.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name is None or (ctx.call_name(value) or "").startswith(LIBRARIES):
                continue
            stmt = ctx.parent(value)
            position = "*"
            if value is not operand and isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple | ast.List):
                names = [e.id if isinstance(e, ast.Name) else None for e in stmt.targets[0].elts]
                if operand.id not in names:
                    continue
                position = str(names.index(operand.id))
            found.setdefault(f"{SUMS_FACT}{name}", f"{os.path.basename(ctx.path)}:{node.lineno}/{position}")
    return found


def _names(expr: ast.expr) -> list[ast.Name | ast.Call]:
    """The names and calls a sum adds by arithmetic (`step_loss / n`, `step(batch)`), not inside a call that
    makes a number of them."""
    if isinstance(expr, ast.BinOp):
        return _names(expr.left) + _names(expr.right)
    return [expr] if isinstance(expr, ast.Name | ast.Call) else []


def summed_elsewhere(ret: ast.Return, ctx) -> tuple[ast.expr, str] | None:
    """(the returned live value, where another file sums it) for a return of a training step whose result a loop
    of another file of the run adds to a running total."""
    func = ctx.enclosing(ret, (ast.FunctionDef, ast.AsyncFunctionDef))
    if ret.value is None or func is None or ctx.project is None or not returns_backwarded(func, ctx):
        return None
    told = ctx.project.kind_returned_by(f"{SUMS_FACT}{func.name}")
    if not told or "/" not in told:
        return None
    where, position = told.rsplit("/", 1)
    value = ret.value
    if position != "*":
        if not isinstance(value, ast.Tuple) or int(position) >= len(value.elts):
            return None
        live = live_positions(func, ctx)
        if live is not None and int(position) not in live:
            return None  # the element summed is a count or a log beside the loss (`return loss, n_tokens, log`)
        value = value.elts[int(position)]
    held = ctx.resolve(value) if isinstance(value, ast.Name) else value  # `acc = (...).mean().item()`
    if any(detached(v, ctx) or isinstance(v, ast.Constant) for v in (value, held)):
        return None
    return value, where
