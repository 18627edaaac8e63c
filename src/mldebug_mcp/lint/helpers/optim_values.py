"""Whether a value *is* an optimiser (or a scheduler), read from what the code does with it, not its name.

`is_optimizer_step` (loops.py) knows `opt.step()` by the receiver's name or its constructor. Projects name their
optimiser anything (`o`, `solver`, `v13`) and hand it in as a parameter. The evidence read here, in the function
(or class) the value lives in:

  - an annotation `optim: torch.optim.Optimizer` / `: Optimizer`, or a constructor from `torch.optim`;
  - `x.param_groups`, `x.zero_grad()` on it; handed to a GradScaler (`scaler.step(x)`, `scaler.unscale_(x)`)
    or to an LR scheduler's constructor (`StepLR(x, ...)`, `optimizer=x`);

and, as the last resort for a parameter nothing else tells about (`for b in dl: l.backward(); o.step()`),
`bare_step`: a `.step()` without arguments after a backward in the same block, whose receiver is neither built
by a known constructor, nor called itself (a model or engine: DeepSpeed's `engine.backward(loss); engine.step()`
clears for you), nor named like a scheduler, profiler or environment.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .loops import is_optimizer_step, is_scheduler_step

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

OPTIMIZER_USES = frozenset({"param_groups", "zero_grad"})
SCALER_TAKES = frozenset({"step", "unscale_"})
# words of a receiver that steps something other than an optimiser
NOT_OPTIMIZER = ("sched", "prof", "env", "timer", "bar", "progress", "ema", "swa", "warmup", "lr", "annealer",
                 "self", "engine", "trainer", "accelerator", "model", "step")


def _annotation(expr: ast.Name, ctx: ModuleContext) -> str:
    function = ctx.enclosing(expr, FUNCTIONS)
    while function is not None:
        a = function.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            if arg.arg == expr.id:
                return ast.unparse(arg.annotation) if arg.annotation is not None else ""
        function = ctx.enclosing(function, FUNCTIONS)
    return ""


def _key(expr: ast.AST) -> str | None:
    """`v3` or `self.v3`: the spelling uses of the same value share."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return f"self.{expr.attr}"
    return None


def _uses(scope: ast.AST, ctx: ModuleContext) -> dict[str, set[str]]:
    """Per value spelling in a function or class: what is done with it ('optimizer' evidence, 'called')."""
    def collect() -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute) and node.attr in OPTIMIZER_USES:
                key = _key(node.value)
                if key:
                    found.setdefault(key, set()).add("optimizer")
            elif isinstance(node, ast.Call):
                called = _key(node.func)
                if called:
                    found.setdefault(called, set()).add("called")
                func = node.func
                handed: list[ast.expr] = []
                if isinstance(func, ast.Attribute) and func.attr in SCALER_TAKES and node.args and (
                        "scaler" in (_key(func.value) or "").lower()
                        or (ctx.constructed(func.value) or "").endswith("GradScaler")):
                    handed = node.args[:1]
                elif "lr_scheduler" in (ctx.call_name(node) or ""):
                    handed = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "optimizer")]
                elif isinstance(func, ast.Attribute) and func.attr == "backward":
                    key = _key(func.value)
                    if key:
                        found.setdefault(key, set()).add("called")
                for value in handed:
                    key = _key(value)
                    if key:
                        found.setdefault(key, set()).add("optimizer")
        return found

    return ctx.memo(("optim_values.uses", scope), collect)


def _scope(expr: ast.AST, ctx: ModuleContext) -> ast.AST:
    if isinstance(expr, ast.Attribute):
        return ctx.enclosing_class(expr) or ctx.tree
    return ctx.enclosing(expr, FUNCTIONS) or ctx.tree


def is_optimizer_value(expr: ast.AST, ctx: ModuleContext) -> bool:
    """`expr` (a name or self attribute) holds an optimiser, by its constructor, annotation or uses."""
    built = ctx.constructed(expr) or ""
    if built:
        return "lr_scheduler" not in built and (built.startswith("torch.optim.") or "optim" in built.lower())
    key = _key(expr)
    if key is None:
        return False
    if isinstance(expr, ast.Name):
        annotation = _annotation(expr, ctx)
        if "Optimizer" in annotation or "optim." in annotation and "lr_scheduler" not in annotation:
            return True
    return "optimizer" in _uses(_scope(expr, ctx), ctx).get(key, set())


def optimizer_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """`opt.step()` by name or constructor, or `x.step()` on a value the code shows is an optimiser."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step") or scheduler_step(call, ctx):
        return False
    return is_optimizer_step(call, ctx) or len(call.args) <= 1 and is_optimizer_value(call.func.value, ctx)


def bare_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """`x.step()` with no arguments on a value nothing else tells about (see the module's note)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "step") or call.args or call.keywords:
        return False
    key = _key(func.value)
    if key is None or ctx.constructed(func.value) or scheduler_step(call, ctx):
        return False
    if any(word in key.lower().removeprefix("self.") for word in NOT_OPTIMIZER):
        return False
    return "called" not in _uses(_scope(func.value, ctx), ctx).get(key, set())


SCHEDULER_USES = frozenset({"get_lr", "get_last_lr", "last_epoch", "base_lrs"})
# a constructor's own class name that says it schedules the learning rate (`WarmupLinearSchedule`, `OneCycleLR`)
SCHEDULE_CLASS = re.compile(r"Sched|LR$|LR[A-Z_]|Warmup|Anneal")


def _scheduler_uses(scope: ast.AST, ctx: ModuleContext) -> set[str]:
    def collect() -> set[str]:
        return {key for node in ast.walk(scope) if isinstance(node, ast.Attribute) and node.attr in SCHEDULER_USES
                and (key := _key(node.value))}

    return ctx.memo(("optim_values.scheduler_uses", scope), collect)


def scheduler_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """`sched.step()` by name or torch constructor, or on a value the code shows is an LR scheduler: built by
    a class named like one, annotated as one, or asked `get_last_lr()` / `last_epoch`."""
    if is_scheduler_step(call, ctx):
        return True
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return False
    receiver = call.func.value
    built = ctx.constructed(receiver) or ""
    if built:
        return bool(SCHEDULE_CLASS.search(built.rsplit(".", 1)[-1])) and "optim" not in built.lower().rsplit(".", 1)[-1]
    key = _key(receiver)
    if key is None:
        return False
    if isinstance(receiver, ast.Name) and re.search(r"Sched|lr_scheduler", _annotation(receiver, ctx)):
        return True
    return key in _scheduler_uses(_scope(receiver, ctx), ctx)
