"""Epoch loops whose steps are calls (MLD021).

An epoch loop often holds no backward() itself: `self.train_epoch(loader)` trains (a helper of this file
that calls backward() and steps the optimizer), then an evaluator object built with the model puts it in
eval mode (`Evaluator(self.model, split="dev").get_scores()`, a class of this file or of another file of the
run). Without a train() in the helper or in the loop, every epoch after the first trains in eval mode.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import ident
from .loops import calls_in_order, is_backward
from .modes import local_targets, update_step
from .modes_facts import handed_models, method_mode

DEPTH = 2


def trains_through_helper(calls: list[ast.Call], ctx: ModuleContext) -> int | None:
    """The index of the first call of a helper of this file that trains (backward() and an update, itself or
    one helper down) and never switches to train mode itself; None when the loop trains nothing that way."""
    names = training_helper_names(ctx)
    for i, call in enumerate(calls):
        name = ident(call.func)
        if name not in names or name in {"train", "eval"}:
            continue
        if any(_trains(t, ctx, DEPTH) for t in local_targets(call, ctx)):
            return i
    return None


def training_helper_names(ctx: ModuleContext) -> frozenset[str]:
    """Names of this file's functions that call backward() at any depth: the only helpers that may train."""
    return ctx.memo(("modes", "training-helper-names"), lambda: frozenset(
        f.name for f in ctx.backward_scopes if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)))


def _trains(function: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    if function not in ctx.backward_scopes:
        return False
    calls = list(calls_in_order(function.body))
    if any(isinstance(c.func, ast.Attribute) and c.func.attr in {"train", "eval"} for c in calls):
        return False  # it sets the mode itself on every call (train(), or eval() for frozen BatchNorm)
    if any(is_backward(c) for c in calls) and any(update_step(c, ctx) for c in calls):
        return True
    return depth > 1 and any(_trains(t, ctx, depth - 1) for c in calls for t in local_targets(c, ctx))


def object_leaving_eval(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The model handed to an evaluator object whose method, called here, leaves it in eval mode:
    `Evaluator(model, ...).scores()` or `ev = Evaluator(model)` ... `ev.scores()`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    built = func.value
    if isinstance(built, ast.Name):
        values = ctx.values_of(built, built)
        built = values[0] if len(values) == 1 else None
    if not isinstance(built, ast.Call) or not isinstance(built.func, ast.Name | ast.Attribute):
        return None
    models = handed_models(built, ctx)
    if not models or method_mode(built, func.attr, ctx) != "eval":
        return None
    return models[0]
