"""A function of the project that steps the scheduler it is handed (`def update_lr(scheduler, epoch, log):
scheduler.step(); log(...)`), told as a project fact: the epoch loop that calls it, in this file or another,
steps that scheduler there, and MLD013 reads the call as the scheduler's step."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import callee
from .loader_facts import scoped, told_in_scope
from .loops import is_optimizer_step
from .optim_steps import FUNCTIONS, local_callee

SCHED_STEPPER = "sched-stepper"  # project fact (scoped): `<function>` -> "index:name" of the parameter it steps


def stepper_facts(ctx: ModuleContext) -> dict[str, str]:
    """`sched-stepper:<name>` for each top-level function of this file that always steps a parameter, argument-free,
    and steps no optimiser itself."""
    found: dict[str, str] = {}
    for function in ctx.tree.body:
        if isinstance(function, FUNCTIONS):
            stepped = _stepped_parameter(function, ctx)
            if stepped is not None:
                found.update(scoped(f"{SCHED_STEPPER}:{function.name}", stepped, ctx))
    return found


def _stepped_parameter(function: ast.AST, ctx: ModuleContext) -> str | None:
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    stepped = None
    for stmt in _top_level(function.body, params):  # each call steps it once
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "step"
                and not call.args and not call.keywords and isinstance(call.func.value, ast.Name)
                and call.func.value.id in params):
            stepped = f"{params.index(call.func.value.id)}:{call.func.value.id}"
    if stepped is None or any(is_optimizer_step(c, ctx) for c in ast.walk(function) if isinstance(c, ast.Call)):
        return None
    return stepped


def _top_level(body: list[ast.stmt], params: list[str]) -> list[ast.stmt]:
    """The body's statements, and those of an `if` that only tests a parameter is given (`if scheduler is not
    None:`, `if sched:`): the step runs on each call that hands one."""
    found = []
    for stmt in body:
        found.append(stmt)
        test = stmt.test if isinstance(stmt, ast.If) and not stmt.orelse else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            test = test.left
        if isinstance(test, ast.Name) and test.id in params:
            found += stmt.body
    return found


def handed_scheduler(call: ast.Call, ctx: ModuleContext) -> ast.expr | None:
    """The scheduler this call hands to a project function that steps it (`update_lr(scheduler, epoch)`)."""
    # no name holding a scheduler, nor a torch lr_scheduler, is handed in this file
    if not ctx.memo(("sched-helpers", "text"), lambda: "sched" in ctx.source.lower()):
        return None
    func = call.func
    # a function by name, or through its module (`utils.update_lr`); not a method of an object
    if not (isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id not in ("self", "cls")) or not call.args and not call.keywords:
        return None
    if local_callee(call, ctx) is not None:  # a function of this file: MLD013 reads its step where it is
        return None
    told = told_in_scope(ctx, f"{SCHED_STEPPER}:{callee(call.func)}")
    if told is None:
        return None
    index, name = told.split(":", 1)
    given = next((k.value for k in call.keywords if k.arg == name),
                 call.args[int(index)] if int(index) < len(call.args) else None)
    if given is None or isinstance(given, ast.Starred):
        return None
    built = ctx.constructed(given) or ""
    return given if "lr_scheduler" in built or "sched" in callee(given).lower() else None
