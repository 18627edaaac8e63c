"""Whether a value *is* an optimiser (or a scheduler), read from what the code does with it, not its name.

`is_optimizer_step` (loops.py) knows `opt.step()` by the receiver's name or its constructor. Projects name their
optimiser anything (`o`, `solver`, `v13`) and hand it in as a parameter. The evidence read here, in the function
(or class) the value lives in:

  - an annotation `optim: torch.optim.Optimizer` / `: Optimizer` (`optimizer_annotation`), or a constructor
    whose name says optim (`torch.optim.AdamW`, `apex.optimizers.FusedLAMB`), not an `lr_scheduler`;
  - `x.param_groups`, `x.zero_grad()` on it; handed to a GradScaler (`scaler.step(x)`, `scaler.unscale_(x)`)
    or to an LR scheduler's constructor (`StepLR(x, ...)`, `optimizer=x`);
  - unpacked from a pair a local function returns with a scheduler built on it (`opt, sched = self.get_opt()`);

and, as the last resort for a parameter nothing else tells about (`for b in dl: l.backward(); o.step()`),
`bare_step`: a `.step()` without arguments after a backward in the same block (the caller, optim_steps, looks
only there), whose receiver is neither built by any constructor this file shows, nor called itself (a model or
engine: DeepSpeed's `engine.backward(loss); engine.step()` clears for you), nor named like a scheduler, profiler
or environment (NOT_OPTIMIZER).
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .graph import own_key
from .kinds import method_of
from .loops import is_optimizer_step, is_scheduler_step

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

OPTIMIZER_USES = frozenset({"param_groups", "zero_grad"})
SCALER_TAKES = frozenset({"step", "unscale_"})
# parts of a receiver's name that step something other than an optimiser; matched as substrings, not whole
# words (`pbar`, `envs`, but also `schema` by "ema", `clr_opt` by "lr")
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


def optimizer_annotation(text: str) -> bool:
    """An annotation's text that names an optimiser (`optim.Adam`, `torch.optim.SGD`, `Optimizer`, also under
    `Optional[...]` or as a string), not a scheduler (`optim.lr_scheduler.StepLR`)."""
    return ("optim." in text or "Optimizer" in text) and "sched" not in text.lower()


def _uses(scope: ast.AST, ctx: ModuleContext) -> dict[str, set[str]]:
    """Per value spelling in a function or class: what is done with it ('optimizer' evidence, 'called')."""
    def collect() -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute) and node.attr in OPTIMIZER_USES:
                key = own_key(node.value)
                if key:
                    found.setdefault(key, set()).add("optimizer")
            elif isinstance(node, ast.Call):
                called = own_key(node.func)
                if called:
                    found.setdefault(called, set()).add("called")
                func = node.func
                handed: list[ast.expr] = []
                if isinstance(func, ast.Attribute) and func.attr in SCALER_TAKES and node.args and (
                        "scaler" in (own_key(func.value) or "").lower()
                        or (ctx.constructed(func.value) or "").endswith("GradScaler")):
                    handed = node.args[:1]
                elif "lr_scheduler" in (ctx.call_name(node) or ""):
                    handed = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "optimizer")]
                elif isinstance(func, ast.Attribute) and func.attr == "backward":
                    key = own_key(func.value)
                    if key:
                        found.setdefault(key, set()).add("called")
                for value in handed:
                    key = own_key(value)
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
        return "lr_scheduler" not in built and "optim" in built.lower()
    key = own_key(expr)
    if key is None:
        return False
    if isinstance(expr, ast.Name) and (
            optimizer_annotation(_annotation(expr, ctx)) or paired_role(expr, ctx) == "optimizer"):
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
    key = own_key(func.value)
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
                and (key := own_key(node.value))}

    return ctx.memo(("optim_values.scheduler_uses", scope), collect)


def scheduler_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """`sched.step()` by name or torch constructor, or on a value the code shows is an LR scheduler: built by
    a class named like one, annotated as one, asked `get_last_lr()` / `last_epoch` (SCHEDULER_USES), or unpacked
    as the scheduler of a returned pair (`paired_role`)."""
    if is_scheduler_step(call, ctx):
        return True
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return False
    receiver = call.func.value
    built = ctx.constructed(receiver) or ""
    if built:
        short = built.rsplit(".", 1)[-1]
        return bool(SCHEDULE_CLASS.search(short)) and "optim" not in short.lower()
    key = own_key(receiver)
    if key is None:
        return False
    if isinstance(receiver, ast.Name) and re.search(r"Sched|lr_scheduler", _annotation(receiver, ctx)):
        return True
    return key in _scheduler_uses(_scope(receiver, ctx), ctx) or paired_role(receiver, ctx) == "scheduler"


def _paired_roles(ctx: ModuleContext) -> dict[tuple[ast.AST, str], str]:
    """`opt, sched = self.get_optimizer(...)` where that method (or a function of this file) returns a pair whose
    second element was built by a call on the first (`sched = cls(opt, warmup_steps=...)`): the names unpacked
    are an optimiser and its scheduler, whatever they are called. Keyed by (scope, name)."""
    def collect() -> dict[tuple[ast.AST, str], str]:
        roles: dict[tuple[ast.AST, str], str] = {}
        for assign in ctx.by_type.get(ast.Assign, ()):
            target, value = assign.targets[0], assign.value
            if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Call)):
                continue
            pair = _returned_pair(value, ctx)
            if pair is None or max(pair) >= len(target.elts):
                continue
            scope = ctx.scope_of(assign)
            for index, role in zip(pair, ("optimizer", "scheduler"), strict=True):
                if isinstance(target.elts[index], ast.Name):
                    roles[scope, target.elts[index].id] = role
        return roles

    return ctx.memo(("optim_values.paired_roles",), collect) if ctx.has_text("return") else {}


def _returned_pair(call: ast.Call, ctx: ModuleContext) -> tuple[int, int] | None:
    """(index of the optimiser, index of the scheduler) in the tuple the called function returns."""
    func = call.func
    callee = None
    if isinstance(func, ast.Name):
        callee = ctx.functions.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(call)
        callee = method_of(cls, func.attr) if cls else None
    if callee is None:
        return None
    for statement in ctx.in_scope(callee, (ast.Return,)):
        returned = statement.value
        if not isinstance(returned, ast.Tuple):
            continue
        names = [e.id if isinstance(e, ast.Name) else None for e in returned.elts]
        for j, element in enumerate(returned.elts):
            built = ctx.values_of(element, at=returned) if isinstance(element, ast.Name) else []
            made = built[0] if built else None
            if isinstance(made, ast.Call) and made.args and isinstance(made.args[0], ast.Name) \
                    and made.args[0].id in names and "optim" not in (ctx.call_name(made) or "").lower() \
                    and _constructed_optimizer(made.args[0], returned, ctx):
                return names.index(made.args[0].id), j
    return None


def _constructed_optimizer(name: ast.Name, at: ast.AST, ctx: ModuleContext) -> bool:
    """The first of the pair is built by a class (`Lamb(groups, lr=lr)`, `torch.optim.AdamW(...)`), not a list of
    parameters or another value the second is made from."""
    values = ctx.values_of(name, at=at)
    made = values[0] if values else None
    if not isinstance(made, ast.Call):
        return False
    func = made.func
    short = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return "optim" in (ctx.call_name(made) or "").lower() or short[:1].isupper()


def paired_role(expr: ast.AST, ctx: ModuleContext) -> str | None:
    if not isinstance(expr, ast.Name):
        return None
    roles = _paired_roles(ctx)
    return roles.get((ctx.scope_of(expr), expr.id)) if roles else None
