"""Callback hooks of a home-made training framework that switch the trainer's model (MLD021).

A fastai- or catalyst-like Learner calls its callbacks at fixed points (`self._cb("on_epoch_end")`,
`for cb in self.cbs: cb.after_epoch(self)`), handing itself; a validation callback's hook
(`def on_epoch_end(self, learn): learn.model.eval() ...`) leaves the learner's model in eval mode, and when
fit() calls model.train() once before the epoch loop, every later epoch trains in eval mode. The callbacks
often live in another file the learner never imports (they are handed in a list), so each file of the run
tells, per hook name, the mode its callback classes' hook leaves the handed object's model in:
`mode:@~hook:<hook>@<folder>` -> 'eval:model' (or 'train:model').
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .loader_facts import scoped, told_in_scope
from .modes import EVAL, SET, TRAIN, switches

MODE_FACT = "mode:"  # modes_facts' family (that module imports this one)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
HOOK = re.compile(r"^_*(on|before|after)_[a-z_]*(epoch|fit|train|valid|validation|eval|batch|step)")


def _hooks(ctx: ModuleContext):
    """(class, method) for each method of a top-level class named like a hook and handed an object after self."""
    for cls in ctx.classes.values():
        if ctx.parent(cls) is not ctx.tree:
            continue
        for method in cls.body:
            if isinstance(method, FUNCS) and HOOK.match(method.name) and len(method.args.args) >= 2:
                yield cls, method


def _switch_text(ctx: ModuleContext) -> bool:
    """Cheap: the file writes a mode switch (most define no hook that switches)."""
    return ctx.has_text(".eval(") or ctx.has_text(".train(")


def hook_mode_keys(ctx: ModuleContext) -> set[str]:
    """The keys hook_mode_facts may tell, without the analysis (what mode_fact_keys lists)."""
    if not _switch_text(ctx):
        return set()
    return {key for _, method in _hooks(ctx) for key in _keys(method.name, "", ctx)}


def hook_mode_facts(ctx: ModuleContext) -> dict[str, str]:
    """For each hook whose last mode switch is on a model the handed object holds (`learn.model.eval()`):
    '<mode>:<attribute>' under the hook's name."""
    found: dict[str, str] = {}
    if not _switch_text(ctx):
        return found
    for _, method in _hooks(ctx):
        handed = method.args.args[1].arg
        switched = [s for s in switches(method, ctx) if (s.key or "").startswith(handed + ".")]
        if switched and switched[-1].mode in (EVAL, TRAIN, SET):
            last = switched[-1]
            found.update(_keys(method.name, f"{last.mode}:{last.key[len(handed) + 1:]}", ctx))
    return found


def _keys(hook: str, value: str, ctx: ModuleContext) -> dict[str, str]:
    return {f"{MODE_FACT}{key}": value for key, value in scoped(f"~hook:{hook}", value, ctx).items()}


def dispatched_hook(call: ast.Call) -> str | None:
    """The hook a trainer's call runs on its callbacks, handing itself: `self._cb("on_epoch_end")`,
    `self.run_callbacks("after_epoch")`, `cb.on_epoch_end(self)`."""
    for arg in call.args[:1]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and HOOK.match(arg.value):
            return arg.value
    func = call.func
    if isinstance(func, ast.Attribute) and HOOK.match(func.attr) and any(
            isinstance(a, ast.Name) and a.id == "self" for a in call.args):
        return func.attr
    return None


def hook_mode(call: ast.Call, ctx: ModuleContext) -> tuple[str, str] | None:
    """(mode, the model's attribute on the trainer) that the callbacks of this file's project leave after the
    hook this call dispatches; None when no file tells."""
    hook = dispatched_hook(call)
    if hook is None or ctx.project is None:
        return None
    told = told_in_scope(ctx, f"~hook:{hook}", MODE_FACT)
    if not told or ":" not in told:
        return None
    mode, attribute = told.split(":", 1)
    return mode, attribute


def hook_model_node(call: ast.Call, attribute: str) -> ast.AST:
    """`self.<attribute>` placed at the call: the trainer's model the hook switched."""
    node: ast.AST = ast.Name(id="self", ctx=ast.Load())
    for part in attribute.split("."):
        node = ast.Attribute(value=node, attr=part, ctx=ast.Load())
    for n in ast.walk(node):
        ast.copy_location(n, call)
    return node
