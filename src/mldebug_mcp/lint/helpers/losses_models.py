"""Which model a finding of MLD001 names: the `self(x)` of a Lightning training_step whose forward (the inference
path) applies the activation, and whether a module class is a model rather than a block of one."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .kinds import Traced, reaching_values
from .losses import SHAPE_METHODS


def inference_forward_call(where: ast.expr, found: Traced, ctx: ModuleContext) -> ast.Call | None:
    """`y_hat = self(x)` in the training_step of a module (Lightning's convention: forward is the inference
    path) when the activation is in its forward: the step can take the logits instead."""
    value = where
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and ctx.call_name(value) is None \
            and value.func.attr in SHAPE_METHODS:
        value = value.func.value
    if isinstance(value, ast.Name):
        reaching = reaching_values(value, ctx)[1] or []
        value = reaching[0][0] if len(reaching) == 1 and reaching[0][1] is None else None
    if not isinstance(value, ast.Call):
        return None
    callee = value.func
    if isinstance(callee, ast.Attribute) and callee.attr == "forward":
        callee = callee.value
    cls = ctx.enclosing_class(value)
    step = ctx.enclosing(value, (ast.FunctionDef,))
    if not (isinstance(callee, ast.Name) and callee.id == "self") or cls is None or step.name != "training_step":
        return None
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    forward = methods.get("forward")
    if "training_step" not in methods or forward is None:
        return None
    inside = set(ast.walk(forward))
    return value if all(o in inside for o in found.origins) else None


def top_level_model(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """A model: a module class whose forward does more than apply its activation (not nn.Softmax itself) and
    that this file never builds inside another module (not a block such as an attention layer)."""
    forward = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if not cls.bases or forward is None:
        return False
    if not any(isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign) for n in ast.walk(forward)):
        return False  # computes nothing before its activation: a layer, not a model
    for call in ctx.by_type.get(ast.Call, ()):
        if isinstance(call.func, ast.Name) and call.func.id == cls.name and ctx.enclosing_class(call) is not None:
            return False
    return True
