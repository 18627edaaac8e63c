"""An evaluation callback handed to a trainer that switches its model to train() only once (MLD021).

A detectron2- or ignite-like trainer of the file puts the model in training mode when it is built
(`def __init__(self, model, ...): model.train()`) and then only loops over steps; periodic evaluation reaches
it as a callback (`EvalHook(period, lambda: evaluate(model, loader))`, `functools.partial(test, model)`) that
it runs between steps. When the evaluation function leaves the model in eval mode (its last switch is eval(),
this file's or another file's of the run), every step after the first evaluation trains in eval mode.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import ident
from .modes import EVAL, TRAIN, direct_switch, switches
from .modes_facts import function_mode

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def eval_callbacks_for_trainer(ctx: ModuleContext) -> list[tuple[ast.AST, str, str, str]]:
    """(the callback's call, the evaluation function, the model, the trainer class) for each such callback."""
    if not ctx.has_text("lambda") and not ctx.has_text("partial"):
        return []
    found = []
    for node in [*ctx.by_type.get(ast.Lambda, ()), *ctx.by_type.get(ast.Call, ())]:
        handed = _handed_call(node)
        if handed is None or not isinstance(ctx.parent(node), ast.Call | ast.List | ast.Tuple | ast.keyword):
            continue  # no callback, or one called here rather than handed on (registered)
        call, func, model = handed
        # the trainer first: the mode analysis of the file is the costly part, and most callbacks train nothing
        trainer = _trainer_built_with(model, ctx.scope_of(node), ctx)
        if trainer is not None and function_mode(func, ctx) == EVAL:  # the function leaves it in eval mode
            found.append((call, ident(call.func) or "it", model, trainer))
    return found


def _handed_call(node: ast.AST) -> tuple[ast.Call, ast.expr, str] | None:
    """`lambda: evaluate(model, ...)` or `partial(evaluate, model, ...)`: (the evaluation call, or the partial
    itself; the function; the model's name, its first plain-name argument)."""
    if isinstance(node, ast.Lambda):
        call = node.body if isinstance(node.body, ast.Call) else None
        func, args = (call.func, call.args) if call is not None else (None, [])
    elif isinstance(node, ast.Call) and (ident(node.func) or "").rsplit(".", 1)[-1] == "partial" and node.args:
        call, func, args = node, node.args[0], node.args[1:]
    else:
        return None
    model = next((a.id for a in args if isinstance(a, ast.Name)), None)
    if call is None or model is None or not isinstance(func, ast.Name | ast.Attribute):
        return None
    return call, func, model


def _trainer_built_with(model: str, scope: ast.AST, ctx: ModuleContext) -> str | None:
    """The class of this file built with `model` in `scope` that switches its model to train() only in
    __init__ and loops in another method (a step loop that never restores the mode)."""
    for call in ctx.in_scope(scope, (ast.Call,)):
        cls = ctx.classes.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if cls is None or not any(isinstance(a, ast.Name) and a.id == model for a in call.args):
            continue
        methods = {m.name: m for m in cls.body if isinstance(m, FUNCS)}
        init = methods.get("__init__")
        if init is None or not any(s.mode == TRAIN and s.direct for s in switches(init, ctx)):
            continue
        others = [m for n, m in methods.items() if n != "__init__"]
        if any((direct_switch(c) or (None, None))[1] == TRAIN for m in others for c in ctx.within(ast.Call, m)):
            continue  # the trainer restores the mode itself (model.train() in its step or loop)
        if any(isinstance(n, ast.For | ast.While) for m in others for n in ast.walk(m)):
            return cls.name
    return None
