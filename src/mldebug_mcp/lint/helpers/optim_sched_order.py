"""Where an optimiser step happens out of sight of the scheduler's step: in a local helper the iteration
calls (`train_step(batch)`, `self.train_epoch()`), in a training function the optimiser is handed to
(`train_model(model, loader, optimizer=opt)`), and which functions run at the start of an epoch or batch
(`pre_epoch`, `on_train_epoch_start`, `before_train_iter`): hooks that run before that period's steps.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import words
from .graph import callee
from .loops import calls_in_order, is_optimizer_step
from .optim_steps import FUNCTIONS, helper_calls, local_callee

START_WORDS = {"start", "begin", "before", "pre"}
PERIOD_WORDS = {"epoch", "batch", "iter", "iteration", "step", "update"}  # a hook run before each step (`before_step`)
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
    named = words(callee(call.func))
    return bool(named & TRAINING_WORDS) and not named & NOT_TRAINING_WORDS


def _optimizer_like(expr: ast.AST, ctx: ModuleContext) -> bool:
    name = callee(expr)
    if words(name) & OPTIMIZER_WORDS and "sched" not in name.lower():
        return True
    return (ctx.constructed(expr) or "").startswith("torch.optim.") and "lr_scheduler" not in (ctx.constructed(expr) or "")


def counts_ahead(call: ast.Call, ctx: ModuleContext) -> bool:
    """`sched.step(epoch=n)` / `sched.step(self.num_updates)` told a step count that is already one ahead of
    the optimiser steps taken: the counter was incremented earlier in this function (`self.num_updates += 1`),
    the argument adds to it (`step + 1`), or it is a loop variable over `range(1, ...)`. The scheduler then
    computes the next period's rate before the optimiser takes this one: the first value is skipped. A
    count that starts at 0 (`for epoch in range(n): sched.step(epoch)`) sets the right rate and is quiet;
    a metric (ReduceLROnPlateau) is never a count."""
    values = [*call.args, *(k.value for k in call.keywords)]
    if len(values) != 1 or any(k.arg not in {"epoch", "step", "num_updates"} for k in call.keywords):
        return False
    value = values[0]
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and any(
            isinstance(v, ast.Constant) and isinstance(v.value, int) and v.value >= 1 for v in (value.left, value.right)):
        return True
    key = ast.dump(value)
    if not isinstance(value, ast.Name | ast.Attribute):
        return False
    # `n += 1` or `n = n + 1` earlier in this function (or a script's top level): the count already includes the
    # step not yet taken
    for bump in ctx.in_scope(ctx.scope_of(call), (ast.AugAssign, ast.Assign)):
        target = bump.target if isinstance(bump, ast.AugAssign) else bump.targets[0]
        adds = isinstance(bump.op, ast.Add) if isinstance(bump, ast.AugAssign) else (
            isinstance(bump.value, ast.BinOp) and isinstance(bump.value.op, ast.Add)
            and key in (ast.dump(bump.value.left), ast.dump(bump.value.right)))
        if adds and bump.lineno < call.lineno and ast.dump(target).replace("Store", "Load") == key:
            return True
    for loop in ctx.ancestors(call):
        if isinstance(loop, ast.For) and isinstance(value, ast.Name) and isinstance(loop.target, ast.Name) \
                and loop.target.id == value.id and isinstance(loop.iter, ast.Call) \
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" and len(loop.iter.args) >= 2:
            start = loop.iter.args[0]
            return isinstance(start, ast.Constant) and isinstance(start.value, int) and start.value >= 1
    return False


SCHEDULER_CLASS = "sched-class"  # project fact (scoped): a class of this file with a step() and no library base


def scheduler_facts(ctx: ModuleContext) -> dict[str, str]:
    """`sched-class:<Name>` = 'own' for each top-level class of this file that defines step() and derives from
    no class but `object` (or such a class of this file): a project's own scheduler (vq-vae-2's CycleScheduler
    sets the lr for the coming optimizer.step()), which torch's order rule is not about. A class with any other
    base (torch's LRScheduler, a library's) is not told. Also the optimiser facts of optim_sched_helpers (a function
    that steps the scheduler it is handed), optim_step_helpers (a step helper called in a loop of another file) and
    sched_per_batch (an epoch-sized schedule handed to a training function of another file)."""
    from .optim_step_helpers import caller_facts

    from .optim_handed_backward import handed_backward_facts

    from .sched_per_batch import handed_schedule_facts

    found: dict[str, str] = caller_facts(ctx)  # the calling file need not say `step`
    found.update(handed_backward_facts(ctx))  # a helper that backwards on the optimiser a step function hands it
    found.update(handed_schedule_facts(ctx))  # an epoch-sized schedule handed to another file's training function
    if not ctx.has_text("step"):
        return found
    from .loader_facts import (
        scoped,  # the scoping of project facts (one project of a multi-project folder)
    )
    from .optim_sched_helpers import stepper_facts

    found.update(stepper_facts(ctx))
    for name, cls in ctx.classes.items():
        if ctx.parent(cls) is ctx.tree and any(isinstance(m, FUNCTIONS) and m.name == "step" for m in cls.body) \
                and own_class(cls, ctx):
            found.update(scoped(f"{SCHEDULER_CLASS}:{name}", "own", ctx))
    return found


def own_class(cls: ast.ClassDef, ctx: ModuleContext, depth: int = 3) -> bool:
    """No base but `object`, or classes of this file that have none either."""
    for base in cls.bases:
        name = ctx.qualname(base) or ""
        local = ctx.classes.get(name)
        if name == "object" or (local is not None and local is not cls and depth and own_class(local, ctx, depth - 1)):
            continue
        return False
    return True
