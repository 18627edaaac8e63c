"""A cross-entropy written by hand on probabilities (`-(soft_targets * torch.log(probs)).sum(1).mean()`): the
log of the prediction a loss is given, as given, weighed by its target distribution. Mixup, label smoothing and
distillation write it so; a probability that underflows to 0 (a softmax over confident logits) gives
0 * -inf = NaN, or -inf where the target is non-zero."""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# named for a loss or a cross-entropy: soft_cross_entropy, xent, soft_ce, SoftTargetCE.forward's class, kd_loss
CE_NAME = re.compile(r"(?i:loss|entropy|xent|(^|_)ce($|_)|criterion|(^|_)nll($|_)|likelihood)|CE(?![a-z])")
FLOORS = {"clamp", "clamp_", "clamp_min", "clamp_min_", "clip", "clip_", "add_"}


def hand_written_cross_entropy(log: ast.Call, argument: ast.expr, ctx: ModuleContext) -> bool:
    """`torch.log(p)` / `p.log()` where `p` is a parameter of a loss-named function (or a method of a loss-named
    class) read as given, multiplied by another parameter (the target distribution), the product summed or
    averaged: an entropy (`p * log(p)`) or a log-space regression is not this shape."""
    if not isinstance(argument, ast.Name):
        return False
    func = ctx.enclosing(log, FUNCTIONS)
    if func is None or not _loss_named(func, ctx):
        return False
    params = [a.arg for a in func.args.posonlyargs + func.args.args if a.arg not in {"self", "cls"}]
    if argument.id not in params or ctx.values_of(argument, at=argument):
        return False  # reassigned in the function: perhaps floored
    if any(ctx.method_name(c) in FLOORS and isinstance(c.func.value, ast.Name) and c.func.value.id == argument.id
           for c in ctx.in_scope(func, (ast.Call,))):
        return False
    return any(_weighted_and_reduced(read, argument.id, params, ctx) for read in _reads(log, func, ctx))


def _reads(log: ast.Call, func: ast.AST, ctx: ModuleContext) -> list[ast.expr]:
    """Where the log's value is used: the log itself, or each read of the one name it is assigned to
    (`log_p = torch.log(p)`, then `-(y * log_p).sum(-1)`)."""
    statement = ctx.parent(log)
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return [log]
    name = statement.targets[0].id
    return [n for n in ctx.in_scope(func, (ast.Name,)) if n.id == name and isinstance(n.ctx, ast.Load)
            and n.lineno > statement.lineno]


def _weighted_and_reduced(read: ast.expr, probability: str, params: list[str], ctx: ModuleContext) -> bool:
    """`read` is multiplied by another parameter (the target distribution) and the product summed or averaged."""
    product = ctx.parent(read)
    while isinstance(product, ast.UnaryOp):
        product = ctx.parent(product)
    if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
        return False
    other = product.right if _holds(product.left, read) else product.left
    weights = {n.id for n in ast.walk(other) if isinstance(n, ast.Name)}
    if probability in weights or not weights & (set(params) - {probability}):
        return False
    return _reduced(product, ctx)


def _holds(side: ast.expr, log: ast.Call) -> bool:
    return any(n is log for n in ast.walk(side))


def _loss_named(func: ast.AST, ctx: ModuleContext) -> bool:
    if CE_NAME.search(func.name):
        return True
    cls = ctx.enclosing_class(func)
    return cls is not None and func.name in {"forward", "__call__"} and bool(CE_NAME.search(cls.name))


def _reduced(product: ast.AST, ctx: ModuleContext) -> bool:
    """The product is summed or averaged (`(...).sum(1)`, `torch.sum(...)`, `.mean()`)."""
    for anc in ctx.ancestors(product):
        if isinstance(anc, ast.stmt):
            return False
        if isinstance(anc, ast.Call) and ((ctx.call_name(anc) or "").rsplit(".", 1)[-1] in {"sum", "mean"}
                                          or ctx.method_name(anc) in {"sum", "mean"}):
            return True
    return False
