"""A Trainer subclass's compute_loss() that drops the normaliser the Trainer hands it.

transformers' Trainer (4.46 and later) passes `num_items_in_batch` to compute_loss() and, when it does,
back-propagates the returned loss without dividing it by gradient_accumulation_steps: the loss is expected
to be normalised by the item count of the whole accumulated batch. An override that takes the argument,
never reads it and never divides by the accumulation steps returns a per-micro-batch mean, so the
accumulated gradient is gradient_accumulation_steps times too large.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext

NORMALISER = "num_items_in_batch"


def unscaled_trainer_loss(function: ast.AST, ctx: ModuleContext) -> ast.Return | None:
    """The last `return <loss>` of such an override, or None."""
    if function.name != "compute_loss" or ctx.enclosing_class(function) is None:
        return None
    cls = ctx.enclosing_class(function)
    if not cls.bases:
        return None
    if any(isinstance(n, ast.Name | ast.Attribute) and (n.id if isinstance(n, ast.Name) else n.attr)
           == "model_accepts_loss_kwargs" for n in ast.walk(cls)):
        return None  # the class tells the Trainer whether to divide: it decided on purpose
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    if NORMALISER not in names:
        return None
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == NORMALISER and isinstance(node.ctx, ast.Load):
            return None  # handed on or used: the override normalises (or lets the model do it)
        if isinstance(node, ast.Name | ast.Attribute) and "accumulation" in (
                node.id if isinstance(node, ast.Name) else node.attr).lower():
            return None
        if isinstance(node, ast.keyword) and node.arg is None and arguments.kwarg is not None and isinstance(
                node.value, ast.Name) and node.value.id == arguments.kwarg.arg:
            return None  # the override's own **kwargs handed on may carry it
    own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for node in ast.walk(function):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and "loss" in func.attr.lower() and func.attr not in own:
            return None  # an inherited loss helper (GRPO's _compute_loss) may normalise for accumulation itself
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None
               and ctx.enclosing(n, (ast.FunctionDef, ast.AsyncFunctionDef)) is function]
    return max(returns, key=lambda n: n.lineno) if returns else None
