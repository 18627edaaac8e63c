"""The log of a softmax or sigmoid output (MLD060): directly, through names, helpers and forwards, and for entries
picked from a model's output."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from . import kinds
from .patterns import log_argument
from .tensors_flow import shared_probability

LOGS = {"torch.log"}
# picking or reshaping entries of a probability tensor keeps them probabilities of the same softmax
PICK_METHODS = {"gather", "squeeze", "unsqueeze", "view", "reshape", "flatten", "index_select", "select",
                "take_along_dim", "float", "double", "contiguous"}
PICK_FUNCTIONS = {"torch.gather", "torch.take_along_dim", "torch.index_select", "torch.squeeze"}
STABLE = {"softmax": "F.log_softmax(x, dim)", "sigmoid": "F.logsigmoid(x)"}


def logged_activation(node: ast.AST, ctx: ModuleContext) -> str | None:
    """'softmax' or 'sigmoid' when `node` is a log (torch.log(x), x.log()) of that activation's output, or of
    entries picked from a softmax (`probs.gather(1, a)`) that nothing else in the function uses."""
    argument = log_argument(node, ctx, LOGS, {"log"})
    if argument is None:
        return None
    activation = ctx.activation_of(argument)
    # a probability the function also uses elsewhere needs a floor, not log space: MLD061's finding
    if activation in STABLE and not shared_probability(node, argument, ctx):
        return activation
    picked = _picked_from(argument, ctx)
    if picked is None or picked[1] is argument:
        return None
    activation = ctx.activation_of(picked[1]) or _model_output_kind(picked[1], ctx)
    return activation if activation == "softmax" and not _used_beside(node, picked[0], ctx) else None


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _model_output_kind(expr: ast.AST, ctx: ModuleContext) -> str | None:
    """The kind of a model's output whose forward (in this file or another of the run) ends in a softmax:
    Rainbow's `ps = self.online_net(states)` then `ps[range(n), a].log()`, also when the forward applies it on
    one branch only (`if not self.quantile: q = F.softmax(q, 2)`): on that branch the log underflows."""
    if not isinstance(expr, ast.Call) or ctx.call_name(expr) is not None:
        return None  # a torch function, or a class built here: activation_of has answered
    found = kinds.traced_kind_any(expr, ctx)
    return found.kind if found is not None else None


def _picked_from(expr: ast.AST, ctx: ModuleContext) -> tuple[list[str], ast.AST] | None:
    """The tensor the log's argument picks its entries from (`ps[range(n), a]`, `probs.gather(1, a)`,
    through the names holding them), with those names; None when nothing is picked."""
    names, picked = [], False
    for _ in range(6):
        if isinstance(expr, ast.Name):
            names.append(expr.id)
            value = ctx.resolve(expr)
            if value is expr:
                break
            expr = value
        elif isinstance(expr, ast.Subscript):
            expr, picked = expr.value, True
        elif isinstance(expr, ast.Call) and ctx.call_name(expr) in PICK_FUNCTIONS and expr.args:
            expr, picked = expr.args[0], True
        elif isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in PICK_METHODS:
            picked = picked or ctx.method_name(expr) in {"gather", "index_select", "select", "take_along_dim"}
            expr = expr.func.value
        else:
            break
    return (names, expr) if picked else None


def _used_beside(log: ast.AST, names: list[str], ctx: ModuleContext) -> bool:
    """Whether the function uses the picked probability (the log's own name) elsewhere, as a focal loss's
    `(1 - p) ** gamma` does; a use on the other arm of an if/else that holds the log does not count."""
    func = ctx.enclosing(log, FUNCTIONS)
    if func is None or not names:
        return False
    inside = {id(n) for n in ast.walk(log)}
    log_arms = _arms(log, ctx)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id == names[0] and isinstance(node.ctx, ast.Load) \
                and id(node) not in inside and not any((anc, not arm) in log_arms for anc, arm in _arms(node, ctx)):
            return True
    return False


def _arms(node: ast.AST, ctx: ModuleContext) -> set[tuple[ast.AST, bool]]:
    """(if statement, True for its body / False for its else) for each if the node lies in."""
    found, child = set(), node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.If) and child is not anc.test:
            found.add((anc, any(child is s for s in anc.body)))
        child = anc
    return found
