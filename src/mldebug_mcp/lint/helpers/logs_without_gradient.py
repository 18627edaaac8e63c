"""Logs whose -inf no gradient and no loss ever reads (MLD060, MLD061): a log that only ranks in decoding, and a
log turned into a number for display.

A zero probability's log is -inf; it turns into NaN only through a gradient (`d log p / dp = 1 / p`), a product
with a zero (`p * log(p)`) or a reduction into a loss or metric. Two shapes have none of these:
- a search that runs no backward and computes no loss (icefall's `keywords_search`, a jit-scripted Viterbi
  decoder; a function named for search or decoding, or one run under no_grad) where the log's value reaches a
  ranking (`log_probs.add_(prior)`, then `ragged_log_probs[i].topk(beam)`, `torch.max(alphas + trans, 1)`): a
  -inf score only ranks that token last;
- a log turned into a number on the spot (`probs[tok_ids].log().item()`, `tok_probs.log().cpu().numpy()`) and
  then only stored or shown (ParlAI's verbose token details): a number carries no gradient.
Either way, a value computed from the log that is then multiplied by a non-constant, summed or averaged, or
handed to a loss keeps the finding: that is where -inf becomes NaN or an infinite metric.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .graph import in_no_grad, is_loss_call
from .tensors_flow import computes_loss

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# a function named for a search or a decoding pass (`modified_beam_search`, `viterbi`, `greedy_decode`); not
# `decoder` (a decoder network's forward trains)
SEARCH_NAME = re.compile(r"search|beam|viterbi|greedy|decode(?!r)|decoding|infer")
RANKINGS = {"topk", "max", "argmax", "sort", "argsort", "kthvalue", "min", "argmin"}
REDUCTIONS = {"sum", "mean", "prod", "nansum", "nanmean", "cumsum", "cumprod", "average"}
# calls that keep a tensor's entries as they are (a reshape, a device move, a copy)
KEEPING = {"view", "reshape", "flatten", "squeeze", "unsqueeze", "cpu", "detach", "float", "double", "contiguous",
           "clone", "to", "view_as", "reshape_as"}
NUMBERS = {"item", "tolist", "numpy"}
# reading a size, a device or a type is no use of the values
SIZES = {"size", "shape", "numel", "dim", "ndim", "ndimension", "device", "dtype", "is_cuda"}
SIZE_CALLS = {"len", "type", "isinstance"}


def log_without_gradient(log: ast.Call, ctx: ModuleContext) -> bool:
    """Whether the log's -inf is harmless: it only ranks in a gradient-free search, or it becomes a number at
    once; and nothing computed from it is multiplied, reduced or handed to a loss."""
    func = ctx.enclosing(log, FUNCTIONS)
    if func is None:
        return False
    number = _turned_into_number(log, ctx)
    if not number and not _gradient_free_search(log, func, ctx):
        return False
    ranked, harmful = _uses(log, func, ctx)
    return not harmful and (number or ranked)


def _turned_into_number(log: ast.Call, ctx: ModuleContext) -> bool:
    """`x.log().item()`, `x.log().view(-1).cpu().numpy()`: reshapes and moves, then a number."""
    node = log
    for _ in range(8):
        attribute = ctx.parent(node)
        call = ctx.parent(attribute) if isinstance(attribute, ast.Attribute) else None
        if not (isinstance(call, ast.Call) and call.func is attribute):
            return False
        if attribute.attr in NUMBERS:
            return True
        if attribute.attr not in KEEPING:
            return False
        node = call
    return False


def _gradient_free_search(log: ast.Call, func: ast.AST, ctx: ModuleContext) -> bool:
    """A function that calls no backward and computes no loss, named for a search or decoding or run under
    no_grad (a decorator, a with-block, or every caller in this module)."""
    if func in ctx.backward_scopes or computes_loss(func, ctx):
        return False
    return bool(SEARCH_NAME.search(func.name.lower())) or in_no_grad(log, ctx)


def _uses(log: ast.Call, func: ast.AST, ctx: ModuleContext) -> tuple[bool, bool]:
    """(whether the log's value reaches a ranking, whether it is multiplied, reduced or handed to a loss),
    through the names assigned from it later in the function."""
    statement = next(a for a in ctx.ancestors(log) if isinstance(a, ast.stmt))
    held = set(_targets(statement, log, ctx)) if _value_flows(log, statement, ctx) else set()
    ranked, harmful = _judge(log, statement, ctx)
    after = (log.end_lineno, log.end_col_offset)
    names = sorted((n for n in ctx.in_scope(func, (ast.Name,)) if (n.lineno, n.col_offset) > after),
                   key=lambda n: (n.lineno, n.col_offset))
    for _ in range(2):  # a second pass for the names a loop assigns before the line that reads them
        for name in names:
            if name.id not in held or not isinstance(name.ctx, ast.Load):
                continue
            stmt = next(a for a in ctx.ancestors(name) if isinstance(a, ast.stmt))
            if not _value_flows(name, stmt, ctx):
                continue
            rank, harm = _judge(name, stmt, ctx)
            ranked, harmful = ranked or rank, harmful or harm
            if harmful:
                return ranked, True
            held.update(_targets(stmt, name, ctx))
    return ranked, harmful


def _value_flows(node: ast.AST, statement: ast.stmt, ctx: ModuleContext) -> bool:
    """Whether the statement reads the values at `node`, not only its size, device or type."""
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.Attribute) and ancestor.value is child and ancestor.attr in SIZES:
            return False
        if isinstance(ancestor, ast.Call) and isinstance(ancestor.func, ast.Name) and ancestor.func.id in SIZE_CALLS:
            return False
        if ancestor is statement:
            return True
        child = ancestor
    return True


def _judge(node: ast.AST, statement: ast.stmt, ctx: ModuleContext) -> tuple[bool, bool]:
    """(ranked, harmful) for the expressions around `node` up to its statement."""
    ranked, child = False, node
    for ancestor in ctx.ancestors(node):
        if ancestor is statement:
            break
        if isinstance(ancestor, ast.BinOp) and isinstance(ancestor.op, ast.Mult):
            other = ancestor.right if ancestor.left is child else ancestor.left
            if not _constant(other):
                return ranked, True  # `p * log(p)`: 0 * -inf is NaN
        if isinstance(ancestor, ast.Call):
            if is_loss_call(ancestor, ctx):
                return ranked, True
            word = _call_word(ancestor, ctx)
            if ancestor.func is child or child in ancestor.args:  # `x.topk(k)` (through its attribute), `f(x)`
                if word in REDUCTIONS:
                    return ranked, True
                ranked = ranked or word in RANKINGS
        child = ancestor
    return ranked, False


def _call_word(call: ast.Call, ctx: ModuleContext) -> str:
    name = ctx.call_name(call)
    return name.rsplit(".", 1)[-1] if name else (ctx.method_name(call) or "")


def _constant(expr: ast.expr) -> bool:
    if isinstance(expr, ast.UnaryOp):
        expr = expr.operand
    return isinstance(expr, ast.Constant)


def _targets(statement: ast.stmt, node: ast.AST, ctx: ModuleContext) -> list[str]:
    """The names a statement assigns from the value at `node` (`a = ...`, `a, b = ...`, `a += ...`, a for-loop
    over it)."""
    if isinstance(statement, ast.Assign):
        stores = statement.targets
    elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
        stores = [statement.target]
    elif isinstance(statement, ast.For | ast.AsyncFor) and (
            node is statement.iter or statement.iter in ctx.ancestors(node)):
        stores = [statement.target]
    else:
        return []
    return [name for store in stores for name in _stored_names(store)]


def _stored_names(target: ast.expr) -> list[str]:
    """`a`, `a, b`, and for `a[i] = ...` / `a.x = ...` the container `a`, not the names in its index."""
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _stored_names(element)]
    if isinstance(target, ast.Starred):
        return _stored_names(target.value)
    while isinstance(target, ast.Subscript | ast.Attribute):
        target = target.value
    return [target.id] if isinstance(target, ast.Name) else []
