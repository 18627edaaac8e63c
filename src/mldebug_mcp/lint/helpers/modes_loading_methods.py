"""Trained weights loaded by a method of the class (MLD020): `self.load_model(d_path, g_path)` whose body runs
`self.G.load_state_dict(torch.load(g_path))`. A method that calls it and then runs `self.G` without training
evaluates a trained model; eval() goes right after that call, where the weights arrive."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .modes import key_of, position


def loaded_by_method(stmt: ast.stmt, ctx: ModuleContext) -> frozenset[str]:
    """The keys of the models a statement `self.m(...)` (or `x = self.m(...)`) loads trained weights into, through
    the method m of the enclosing class."""
    value = getattr(stmt, "value", None)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "self"):
        return frozenset()
    cls = ctx.enclosing_class(stmt)
    if cls is None:
        return frozenset()
    return _loading_methods(cls, ctx).get(value.func.attr, frozenset())


def loaded_before(call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """A statement of `scope`, before `call`, loads trained weights into `key` through a method of the class. A direct
    `key.load_state_dict(...)` is modes_loaded's (it anchors past branches)."""
    return any(position(stmt) < position(call) and key in loaded_by_method(stmt, ctx)
               for stmt in getattr(scope, "body", ()))


def _loading_methods(cls: ast.ClassDef, ctx: ModuleContext) -> dict[str, frozenset[str]]:
    """Method name -> the keys of the models its body loads weights into (`self.G.load_state_dict(...)`)."""
    def compute() -> dict[str, frozenset[str]]:
        found = {}
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            keys = {key_of(c.func.value) for c in ast.walk(method) if isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Attribute) and c.func.attr == "load_state_dict" and c.args}
            keys.discard(None)
            if keys:
                found[method.name] = frozenset(keys)
        return found
    return ctx.memo(("mld020.loading-methods", id(cls)), compute)
