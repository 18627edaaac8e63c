"""Where an optimiser step happens out of sight of the scheduler's step: in a local helper the iteration
calls (`train_step(batch)`, `self.train_epoch()`), in a training function the optimiser is handed to
(`train_model(model, loader, optimizer=opt)`), and which functions run at the start of an epoch or batch
(`pre_epoch`, `on_train_epoch_start`, `before_train_iter`): hooks that run before that period's steps.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import words
from .loops import calls_in_order, is_optimizer_step
from .optim_steps import helper_calls, local_callee

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
START_WORDS = {"start", "begin", "before", "pre"}
PERIOD_WORDS = {"epoch", "batch", "iter", "iteration"}
END_WORDS = {"end", "after", "post", "finish", "complete", "completed"}
TRAINING_WORDS = {"train", "fit"}
NOT_TRAINING_WORDS = {"eval", "evaluate", "test", "valid", "validate", "validation", "save", "load", "log",
                      "checkpoint", "build", "make", "create", "get", "init", "setup"}
OPTIMIZER_WORDS = {"optimizer", "optimiser", "optim", "opt", "optimizers", "optimisers", "optims"}


def in_start_hook(node: ast.AST, ctx: ModuleContext) -> bool:
    """The node is in a function named as a hook run when an epoch or batch starts."""
    function = ctx.enclosing(node, FUNCTIONS)
    if function is None:
        return False
    named = words(function.name)
    return bool(named & START_WORDS and named & PERIOD_WORDS) and not named & END_WORDS


def steps_out_of_sight(stmt: ast.stmt, ctx: ModuleContext) -> bool:
    """The statement calls a local helper that steps an optimiser, or hands an optimiser to a training
    function we cannot read (`train_model(..., optimizer=self.optimizer)`)."""
    for call in calls_in_order([stmt]):
        if local_callee(call, ctx) is not None:
            if any(is_optimizer_step(c, ctx) for c in helper_calls(call, ctx)):
                return True
        elif _trains(call, ctx) and any(_optimizer_like(a, ctx) for a in [*call.args, *(k.value for k in call.keywords)]):
            return True
    return False


def _trains(call: ast.Call, ctx: ModuleContext) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    named = words(name)
    return bool(named & TRAINING_WORDS) and not named & NOT_TRAINING_WORDS


def _optimizer_like(expr: ast.AST, ctx: ModuleContext) -> bool:
    name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""
    if words(name) & OPTIMIZER_WORDS and "sched" not in name.lower():
        return True
    return (ctx.constructed(expr) or "").startswith("torch.optim.") and "lr_scheduler" not in (ctx.constructed(expr) or "")
