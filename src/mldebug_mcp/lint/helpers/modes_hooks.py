"""Lifecycle hooks of a training-logic class that leave the model in eval mode (MLD021).

A logic or handler class a training loop calls at fixed points (`train_epoch_begin`, `train_step`,
`train_validation_begin`, `eval_step`) puts the model in eval mode when validation begins and in train mode
only when an epoch begins. Validation that runs in mid-epoch (every n iterations) then leaves every later step
of that epoch training in eval mode: nothing (no validation-end hook) switches it back. Framework callbacks
(`on_validation_start`) are left out: the framework restores the mode itself.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .modes import EVAL, SET, TRAIN, related, switches

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
VALIDATION_BEGIN = re.compile(r"(valid|eval).*_(begin|start)$|^(before|pre)_(valid|eval)")
EPOCH_BEGIN = re.compile(r"(train|epoch).*_(begin|start)$|^(before|pre)_(train|epoch)")


def validation_hook_left_in_eval(func: ast.AST, ctx: ModuleContext) -> tuple[ast.AST, str, str] | None:
    """(the eval() call, the model's key, the epoch hook that restores train mode) for a validation-begin hook
    whose eval() only an epoch-begin hook of the same class undoes; else None."""
    name = func.name.lower()
    if name.startswith("on_") or not VALIDATION_BEGIN.search(name):
        return None
    cls = ctx.parent(func)
    if not isinstance(cls, ast.ClassDef):
        return None
    evals = [s for s in switches(func, ctx) if s.mode == EVAL and s.key is not None]
    if not evals:
        return None
    last = evals[-1]
    restoring = []
    for method in cls.body:
        if not isinstance(method, FUNCS) or method is func:
            continue
        if any(s.mode in (TRAIN, SET) and related(s.key, last.key) for s in switches(method, ctx)):
            restoring.append(method.name)
    epoch_hooks = [m for m in restoring if EPOCH_BEGIN.search(m.lower()) and not VALIDATION_BEGIN.search(m.lower())]
    if not epoch_hooks or len(epoch_hooks) != len(restoring):
        return None  # restored elsewhere too (a validation-end hook), or never: not this shape
    return last.node, last.key, epoch_hooks[0]
