"""Models that come out of a factory in eval mode (MLD021): `model = build_model(cfg)` where the builder (of this
file, or of another file of the run per its mode fact) ends with `model.eval(); return model`, a habit of
loaders written for inference. A training loop that then trains the model without .train() trains it in eval
mode from the first step: dropout off, BatchNorm frozen on its running statistics."""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .evaluation import SETUP_CALLS, strip_calls
from .modes import EVAL, key_of, local_targets, position, switches
from .modes_facts import callee_mode, trainer_in_scope

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
INFERENCE_NAMES = re.compile(r"infer|predict|eval|deploy|export|serv|test|demo")


def built_in_eval(loop: ast.AST, ctx: ModuleContext) -> list[tuple[str, ast.Assign, ast.AST | None]]:
    """(key, the assignment, the factory's eval() when it is in this file) for each model assigned from a factory
    that returns it in eval mode, in the scope of `loop` before it."""
    scope = ctx.scope_of(loop)
    found = []
    for node in ast.walk(scope) if isinstance(scope, (*FUNCS, ast.Module)) else ():
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or ctx.scope_of(node) is not scope \
                or position(node) >= position(loop):
            continue
        key = key_of(node.targets[0])
        call = _factory_call(node.value)
        if key is None or call is None:
            continue
        local = _callee(call, scope, ctx)
        if local is not None:
            switch = returned_eval(local, ctx)
            if switch is not None:
                found.append((key, node, switch))
        elif callee_mode(call, ctx) == EVAL or _asks_for_eval(call):
            found.append((key, node, None))
    return found


TRAIN_FLAGS = {"train", "training", "is_train", "is_training"}
EVAL_FLAGS = {"eval", "is_eval", "evaluation", "inference", "eval_mode"}


def _asks_for_eval(call: ast.Call) -> bool:
    """`get_model(args, configs, device, train=False)`: the factory is told the model is not for training (FastSpeech2,
    blind split 14; its builder, in a file outside the run, calls model.eval() then)."""
    return any(isinstance(k.value, ast.Constant) and (k.arg in TRAIN_FLAGS and k.value.value is False
                                                      or k.arg in EVAL_FLAGS and k.value.value is True)
               for k in call.keywords)


def _factory_call(value: ast.expr) -> ast.Call | None:
    """`build_model(cfg)`, also `build_model(cfg).to(device)`."""
    value = strip_calls(value, SETUP_CALLS)
    return value if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else None


def _callee(call: ast.Call, caller: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """The function of this file that `call` runs, other than `caller` itself; None if none."""
    return next((t for t in local_targets(call, ctx) if isinstance(t, FUNCS) and t is not caller), None)


def returned_eval(func: ast.AST, ctx: ModuleContext, depth: int = 3) -> ast.AST | None:
    """The eval() that leaves the model a function returns in eval mode (found in a helper it returns through,
    `return _set_state(model)`), or None."""
    if depth <= 0:
        return None
    for ret in (n for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None):
        if ctx.enclosing(ret, FUNCS) is not func:
            continue
        value = ret.value
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in SETUP_CALLS | {"eval"}:
            if value.func.attr == "eval":
                return value  # return model.to(device).eval()
            value = value.func.value
        if isinstance(value, ast.Call):  # return _set_state(model, ...)
            inner = _callee(value, func, ctx)
            found = returned_eval(inner, ctx, depth - 1) if inner is not None else None
            if found is not None:
                return found
            continue
        key = key_of(value)
        end = (ret.lineno, ret.col_offset)
        last = [w for w in switches(func, ctx) if w.key == key and position(w.node) < end]
        if key and last and last[-1].mode == EVAL:
            node = last[-1].node
            if isinstance(node, ast.Assign):  # model = model.eval(): the call is where the fix goes
                node = node.value
            if not last[-1].direct and isinstance(node, ast.Call):  # model = _set_state(model): its eval()
                inner = _callee(node, func, ctx)
                deeper = returned_eval(inner, ctx, depth - 1) if inner is not None else None
                return deeper or node
            return node
    return None


def builders_for_a_trainer(ctx: ModuleContext) -> list[tuple[ast.AST, ast.AST, str]]:
    """(builder, its eval(), the trainer) for each builder of this file that returns the model in eval mode, in a
    run whose framework module trains a model it is handed without switching a mode (modes_facts.TRAINS_HANDED).
    Builders named for inference or prediction are left out: their models are not meant to train."""
    if ctx.project is None or not ctx.has_text("eval"):
        return []
    # asked first: most runs have no such trainer, and finding the builders walks every function of the file
    trainer = trainer_in_scope(ctx)
    if not trainer:
        return []
    found: dict[int, tuple[ast.AST, ast.AST]] = {}
    for name, func in ctx.functions.items():
        switch = returned_eval(func, ctx) if not INFERENCE_NAMES.search(name.lower()) else None
        if switch is not None:
            found.setdefault(id(switch), (func, switch))
    return [(func, switch, trainer) for func, switch in found.values()]
