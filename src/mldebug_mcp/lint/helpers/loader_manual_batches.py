"""Batches sliced by hand from a list or array in the same order on every pass of a training loop (MLD050).

`for step in range(len(lines) // B): batch = lines[step * B:(step + 1) * B]`, with no shuffle, permutation or
random draw anywhere in the function: every epoch sees the data in file order, as a DataLoader without
shuffle=True does. Truncated back-propagation through time walks a sequence in order on purpose (a carried
hidden state), so a function that speaks of one is left alone.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .loops import is_any_backward

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# any of these in the function's code: the data may be put in a random order
RANDOM_ORDER = re.compile(r"shuffle|perm|sample|choice|randint|random_split|sampler", re.IGNORECASE)
IN_ORDER_ON_PURPOSE = re.compile(r"bptt|hidden|seq_len|sequence_length|time_step|timestep|window", re.IGNORECASE)


def sliced_in_order(sub: ast.Subscript, ctx: ModuleContext) -> str | None:
    """The name a training loop slices its batches from, in order, when nothing in the function shuffles it."""
    window = sub.slice
    if not isinstance(window, ast.Slice) or not isinstance(sub.value, ast.Name) or window.step is not None:
        return None
    counter = _batch_counter(window)
    if counter is None:
        return None
    loop = _loop_over(counter, sub, ctx)
    if loop is None or not any(isinstance(c, ast.Call) and is_any_backward(c) for c in ast.walk(loop)):
        return None
    function = ctx.enclosing(loop, FUNCTIONS)
    if function is None or _parameter(sub.value.id, function) or not _bound_in(sub.value.id, function):
        return None  # data handed in (or a global) may have been shuffled by the caller
    text = ast.get_source_segment(ctx.source, function) or ""
    if RANDOM_ORDER.search(text) or IN_ORDER_ON_PURPOSE.search(text):
        return None
    return sub.value.id


def _batch_counter(window: ast.Slice) -> str | None:
    """`k` of `[k * B:(k + 1) * B]`."""
    lower, upper = window.lower, window.upper
    if not (isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Mult) and isinstance(upper, ast.BinOp)
            and isinstance(upper.op, ast.Mult)):
        return None
    counter = lower.left if isinstance(lower.left, ast.Name) else None
    plus_one = upper.left
    if counter is None or not (isinstance(plus_one, ast.BinOp) and isinstance(plus_one.op, ast.Add)
                               and isinstance(plus_one.left, ast.Name) and plus_one.left.id == counter.id):
        return None
    return counter.id if ast.dump(lower.right) == ast.dump(upper.right) else None


def _loop_over(counter: str, sub: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """The loop around `sub` whose target is `counter` (`for step in range(...)`, `for step, x in enumerate(...)`)."""
    for ancestor in ctx.ancestors(sub):
        if isinstance(ancestor, FUNCTIONS):
            return None
        if isinstance(ancestor, ast.For | ast.AsyncFor) and any(
                isinstance(n, ast.Name) and n.id == counter for n in ast.walk(ancestor.target)):
            return ancestor
    return None


def _parameter(name: str, function: ast.AST) -> bool:
    arguments = function.args
    return any(a.arg == name for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))


def _bound_in(name: str, function: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(function))
