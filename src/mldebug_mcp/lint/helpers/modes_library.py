"""A library class handed its model by the caller and scoring the inputs it is given (MLD020 stays quiet).

`MaxLogit(model).predict(x)` returns `score(self.model(x))`: an out-of-distribution detector, a scorer or an
explainer wraps whatever model its caller built and trained, and runs it on the inputs of each call. The
model's mode is the caller's, as such libraries document (their examples call model.eval() first); the
class could not know whether the caller wants dropout on (Monte Carlo estimates) or off.

Only where the class takes the model in a method (its __init__, a setter), runs it on the method's own
inputs (no loop over batches: a pass over a loader is an evaluation the class runs itself), and no method of
the class trains or puts that model in training mode.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .modes import TRAIN, switches
from .modes_evidence import enclosing_loops, scope_trains

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def scores_callers_model(call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """`self.model(x)` in a method of a class that was handed the model, on the method's own inputs."""
    if not key.startswith("self.") or key.count(".") != 1 or not isinstance(scope, FUNCS):
        return False
    cls = ctx.enclosing_class(scope)
    if cls is None or enclosing_loops(call, scope, ctx) or not _only_handed(cls, key[5:]):
        return False
    if not _from_inputs(call, scope, ctx):
        return False
    methods = [m for m in cls.body if isinstance(m, FUNCS)]
    return not any(scope_trains(m, ctx) for m in methods) and not any(
        s.mode == TRAIN and s.key in (key, None) for m in methods for s in switches(m, ctx))


def _only_handed(cls: ast.ClassDef, attr: str) -> bool:
    """Every assignment of `self.<attr>` in the class stores a parameter of its method (or None)."""
    found = False
    for method in cls.body:
        if not isinstance(method, FUNCS):
            continue
        params = {a.arg for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]}
        for node in ast.walk(method):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign | ast.AugAssign) else []
            if not any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                       and t.value.id == "self" for t in targets):
                continue
            value = getattr(node, "value", None)
            if isinstance(value, ast.Name) and value.id in params:
                found = True
            elif not (isinstance(value, ast.Constant) and value.value is None):
                return False
    return found


def _from_inputs(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The call reads only the method's parameters, directly or through names assigned from them."""
    args = scope.args
    known = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} - {"self"}
    if args.vararg:
        known.add(args.vararg.arg)
    if args.kwarg:
        known.add(args.kwarg.arg)
    for node in sorted((n for n in ast.walk(scope) if isinstance(n, ast.Assign) and n.lineno < call.lineno),
                       key=lambda n: n.lineno):
        read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
        if read and read <= known | {"torch", "self"}:
            known |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    read = {n.id for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a)
            if isinstance(n, ast.Name)}
    return bool(read) and read <= known
