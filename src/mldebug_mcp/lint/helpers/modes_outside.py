"""Whether code outside a scope sets the mode its model runs in (MLD020): an enclosing function, a caller in
this file, or another function (a setup or load method, module-level code) whose last switch of the model
is eval(). An evaluation method that runs the model after its own eval() in a file that trains the model
again, or a training loop whose last eval() is its validation helper's, is no such setup.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import scope_calls
from .modes import EVAL, SET, TRAIN, container_key, direct_switch, key_of, position, related, switches
from .modes_evidence import scope_trains
from .modes_handed_models import calls_by_ident
from .modes_indirect import runs_model

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def set_outside(scope: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """An enclosing function, a caller in this file, or a function that leaves the model in eval mode
    (a setup or load method, module-level code) switches it: this scope runs in that mode."""
    for anc in ctx.ancestors(scope):
        if isinstance(anc, FUNCS) and any(s.mode == EVAL for s in switches(anc, ctx)):
            return True
    if isinstance(scope, FUNCS) and _callers_set_eval(scope, key, ctx, 3):
        return True
    root = key.split(".")[0]
    if root != "self" and isinstance(scope, FUNCS) and root in ctx.bindings.get(scope, {}):
        return False  # a parameter or a local: other scopes' switches are about other objects
    cls = ctx.enclosing_class(scope) if root == "self" else None
    for other in switching_scopes(ctx):
        if other is scope or (cls is not None and ctx.enclosing_class(other) is not cls):
            continue
        last = [s for s in switches(other, ctx) if (k := s.key or container_key(s)) is not None and related(k, key)]
        if last and last[-1].mode == EVAL and not _evaluates_then_trains(other, last[-1], key, ctx) and not (
                not last[-1].direct and scope_trains(other, ctx)):
            return True  # (a training loop whose last eval() is its per-epoch validation helper's leaves
            # the mode to the order of calls, not to a setup step)
    return False


def _evaluates_then_trains(other: ast.AST, switch, key: str, ctx: ModuleContext) -> bool:
    """`other` is an evaluation method (it runs the model itself after its eval()) in a file that puts the
    model back in training mode elsewhere: the eval() is for that method's own pass, and another method
    (infer(), predict()) runs in whatever mode the last phase left, not in eval mode."""
    trained = ctx.memo(("mld020", "train-switched"), lambda: [
        d[0] for c in ctx.by_type.get(ast.Call, ()) if (d := direct_switch(c)) is not None and d[1] == TRAIN])
    if not any(related(t, key) for t in trained if t is not None):
        return False
    after = position(switch.node)
    return any(position(c) > after and (r := runs_model(c, ctx)) is not None and related(key_of(r), key)
               for c in scope_calls(other, ctx))


def _callers_set_eval(func: ast.AST, key: str, ctx: ModuleContext, depth: int) -> bool:
    """A call of `func` in this file follows an eval() (or a train(flag)) in its scope, or sits in a function whose own
    callers do (main() -> evaluate() -> _batches()). Another model switched there (`self.sampler.eval()`
    before `self._features(x)` runs `self.inception`) does not count."""
    for call in calls_by_ident(ctx).get(func.name, ()):
        caller = ctx.scope_of(call)
        cls = ctx.enclosing_class(func)
        same_class = cls is not None and isinstance(caller, FUNCS) and ctx.enclosing_class(caller) is cls
        passed = _passed_key(func, call, key, cls is not None)
        # train(is_training) sets the mode per phase: the caller chose it (a learner's one_epoch(training))
        if any(s.mode in (EVAL, SET) and position(s.node) < position(call) and not _other_model(s.key, key, same_class)
               and (passed is None or s.key is None or related(s.key, passed))
               for s in switches(caller, ctx)):
            return True
        if passed is not None and _built_in_eval(passed, call, caller, ctx):
            return True
        if depth > 1 and isinstance(caller, FUNCS) and caller is not func and _callers_set_eval(
                caller, key, ctx, depth - 1):
            return True
    return False


def _built_in_eval(passed: str, call: ast.Call, caller: ast.AST, ctx: ModuleContext) -> bool:
    """The caller got the model it hands on from a factory that returns it in eval mode
    (`model = build_model(arch, ckpt)` whose builder, here or in another file of the run, ends with
    `model.eval()`): the mode was set where the model was made."""
    from .modes_factories import (
        built_in_eval,  # that module reads the facts of the run, imported when needed
    )
    return any(k == passed for k, _, _ in built_in_eval(call, ctx))


def _passed_key(func: ast.AST, call: ast.Call, key: str, method: bool) -> str | None:
    """The caller's name for the model the parameter `key` is (`do_eval(args, model, ...)`: `model`), so that
    another model switched there (`engine.eval()` before `do_eval(args, model)`) does not count; None when
    the key is no parameter or the argument is not a plain name."""
    root, _, rest = key.partition(".")
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    if root not in params or root == "self":
        return None
    index = params.index(root) - (1 if method and params[:1] == ["self"] else 0)
    arg = call.args[index] if 0 <= index < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[:index + 1]) else next(
        (k.value for k in call.keywords if k.arg == root), None)
    passed = key_of(arg) if arg is not None else None
    return passed + ("." + rest if rest else "") if passed else None


def _other_model(switched: str | None, key: str, same_class: bool) -> bool:
    """`self.vgg` is what it is in every method: another attribute of self switched in a caller, or any
    other name switched in a method of the same class, is another model (a caller outside the class may
    switch the very model it hands to the constructor: `model.eval(); Predictor(model)`)."""
    if switched is None or not key.startswith("self.") or related(switched, key):
        return False
    return switched.startswith("self.") or same_class


def switching_scopes(ctx: ModuleContext) -> list[ast.AST]:
    """The scopes that call .eval() or .train() on something (none: the file switches no mode)."""
    def compute():
        scopes = {id(ctx.scope_of(c)): ctx.scope_of(c) for c in ctx.by_type.get(ast.Call, ())
                  if isinstance(c.func, ast.Attribute) and c.func.attr in {"eval", "train"}}
        return list(scopes.values())
    return ctx.memo(("mld020", "switching-scopes"), compute)
