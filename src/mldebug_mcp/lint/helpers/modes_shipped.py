"""A model class that loads its own shipped weights when it is built (MLD020).

`class Predictor(nn.Module): def __init__(self): ...; self.load_state_dict(torch.load(self.WEIGHTS))`: every
instance is the trained predictor, ready to use, and stays in training mode (dropout on, BatchNorm on batch
statistics) unless its user knows to call eval(). Weights chosen by the caller (a path parameter) are a
fine-tuning start, whose mode is the caller's business, and stay quiet.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import is_eval_call, model_class, own_nodes

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def shipped_weights_without_eval(ctx: ModuleContext) -> Iterator[ast.Call]:
    """The `self.load_state_dict(...)` calls of model classes' __init__ that load fixed weights and are not
    followed by `self.eval()` in that __init__."""
    if not ctx.has_text("load_state_dict"):
        return  # most files load no weights: no class's __init__ needs a look
    for cls in ctx.by_type.get(ast.ClassDef, ()):
        init = next((f for f in cls.body if isinstance(f, FUNCS) and f.name == "__init__"), None)
        if init is None or not model_class(cls, ctx):
            continue
        calls = [n for n in own_nodes(init, ctx) if isinstance(n, ast.Call)]
        loads = [c for c in calls if _loads_self(c)]
        if not loads or any(is_eval_call(c) and _on_self(c) for c in calls):
            continue
        params = {a.arg for a in [*init.args.args, *init.args.kwonlyargs]} - {"self"}
        load = loads[-1]
        if not _chosen_by_caller(load, init, params, ctx):
            yield load


def _loads_self(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "load_state_dict" and _on_self(call)


def _on_self(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"


def _chosen_by_caller(load: ast.Call, init: ast.AST, params: set[str], ctx: ModuleContext) -> bool:
    """The weights come from an __init__ parameter (`path`, `pretrained`, `state_dict`), or loading is
    conditional on one (`if pretrained: self.load_state_dict(...)`): the caller decides."""
    names = _names_reaching(load, init, ctx)
    if names & params:
        return True
    for anc in ctx.ancestors(load):
        if anc is init:
            return False
        if isinstance(anc, ast.If) and {n.id for n in ast.walk(anc.test) if isinstance(n, ast.Name)} & params:
            return True
    return False


def _names_reaching(load: ast.Call, init: ast.AST, ctx: ModuleContext) -> set[str]:
    """Names the loaded value is made of, followed through the assignments of __init__ (two steps)."""
    names = {n.id for a in load.args for n in ast.walk(a) if isinstance(n, ast.Name)}
    for _ in range(2):
        for node in own_nodes(init, ctx):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
                names |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return names
