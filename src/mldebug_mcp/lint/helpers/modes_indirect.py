"""A model run through a helper of this file (MLD020).

Trainers share the forward between training and validation: `output, loss = self._forward_pass(x, y)`
in validate() runs `self.model` just as `self.model(x)` would, and `logits = run_batch(net, batch)` runs
`net`. A helper counts when it is a method of the same class (or a function of this module handed the model
as a parameter) that runs the model itself and neither switches a mode nor updates weights: its callers
decide the mode.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import scope_calls
from .modes import key_of, switches
from .modes_evidence import framework_managed, model_class, trains
from .modes_handed_models import calls_by_ident
from .modes_models import forward_receiver

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def runs_model(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The model `call` runs: its own receiver, or the one a helper of this file runs for it."""
    receiver = forward_receiver(call, ctx)
    if receiver is not None or not (call.args or call.keywords) or type(ctx.parents.get(call)) is ast.Expr:
        return receiver
    helpers = _helpers(ctx)
    return _through_helper(call, helpers, ctx) if helpers else None


def running_scopes(ctx: ModuleContext) -> set[ast.AST]:
    """The scopes of the calls that run a model (runs_model is not None), in one pass over the calls: runs_model
    asked of each call, without a call and a memo lookup of the helpers per call."""
    found: set[ast.AST] = set()
    parents, expr, helpers = ctx.parents, ast.Expr, None
    for call in ctx.by_type.get(ast.Call, ()):
        if not (call.args or call.keywords):
            continue  # runs_model answers None: no forward receiver, and no helper is run without arguments
        receiver = forward_receiver(call, ctx)
        if receiver is None:
            if type(parents.get(call)) is expr:
                continue
            if helpers is None:
                helpers = _helpers(ctx)
            if not helpers or _through_helper(call, helpers, ctx) is None:
                continue
        found.add(ctx.scope_of(call))
    return found


def _through_helper(call: ast.Call, helpers: dict, ctx: ModuleContext) -> ast.AST | None:
    """The model a helper of this file runs for `call` (runs_model's second half)."""
    func = call.func
    if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id == "self":
        cls = ctx.enclosing_class(call)
        found = helpers.get((id(cls), func.attr)) if cls is not None else None
        return found[1] if found is not None and found[0] is None else None
    if type(func) is ast.Name:
        found = helpers.get((None, func.id))
        if found is not None and found[0] is not None and found[0] < len(call.args):
            argument = call.args[found[0]]
            return argument if key_of(argument) is not None else None
    return None


def _helpers(ctx: ModuleContext) -> dict:
    """(class id or None, name) -> (parameter index or None, receiver node) for each helper that runs a model:
    a method running `self.*`, a module-level function running one of its parameters."""
    def compute() -> dict:
        # only functions that run a model directly (forward_receiver is memoised: the rule asks it of every
        # call anyway)
        running = {}
        for call in ctx.by_type.get(ast.Call, ()):
            if (call.args or call.keywords) and forward_receiver(call, ctx) is not None:
                scope = ctx.scope_of(call)
                if isinstance(scope, FUNCS):
                    running[id(scope)] = scope
        found = {}
        for function in running.values():
            parent = ctx.parent(function)
            if not isinstance(parent, ast.ClassDef | ast.Module) or function.name == "forward":
                continue
            entry = _entry(function, parent, ctx)
            if entry is not None:
                found[(id(parent) if isinstance(parent, ast.ClassDef) else None, function.name)] = entry
        return found
    return ctx.memo(("modes", "forward-helpers"), compute)


def _entry(function: ast.AST, parent: ast.AST, ctx: ModuleContext) -> tuple[int | None, ast.AST] | None:
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    for call in scope_calls(function, ctx):
        receiver = _held(forward_receiver(call, ctx), function, ctx)
        key = key_of(receiver) if receiver is not None else None
        if key is None:
            continue
        if isinstance(parent, ast.ClassDef) and key.startswith("self.") and params[:1] == ["self"]:
            index = None
        elif isinstance(parent, ast.Module) and key in params:
            index = params.index(key)
        else:
            continue
        if isinstance(parent, ast.ClassDef) and model_class(parent, ctx):
            return None  # a model's own method: it runs in whatever mode the model's user set
        if switches(function, ctx) or trains(scope_calls(function, ctx), ctx) or (
                framework_managed(function, ctx) and not _own_step(function, parent, ctx)):
            return None
        return index, receiver
    return None


def _own_step(function: ast.AST, parent: ast.AST, ctx: ModuleContext) -> bool:
    """`val_step` of a class that runs it itself (`self.val_step(x, y)` in its own val_epoch): a helper of the
    class's own loop, not a hook a framework calls in the mode it set (framework_managed takes `*step` for one)."""
    if not (isinstance(parent, ast.ClassDef) and function.name.endswith("step")):
        return False
    return any(isinstance(c.func, ast.Attribute) and c.func.attr == function.name and isinstance(c.func.value, ast.Name)
               and c.func.value.id == "self" for c in calls_by_ident(ctx).get(function.name, ())
               if ctx.enclosing_class(c) is parent)


def _held(receiver: ast.AST | None, function: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """The container a model comes from when it is one of several (an ensemble, Q-networks): `self.q_nets[0]`
    and `net` of `for net in self.nets` stand for `self.q_nets` and `self.nets`."""
    if isinstance(receiver, ast.Subscript) and key_of(receiver.value) is not None:
        return receiver.value
    if isinstance(receiver, ast.Name) and receiver.id not in {a.arg for a in function.args.args}:
        for node in ast.walk(function):
            if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name) and (
                    node.target.id == receiver.id and (key_of(node.iter) or "").startswith("self.")):
                return node.iter
    return receiver
