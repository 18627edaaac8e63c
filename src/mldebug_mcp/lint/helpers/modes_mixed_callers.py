"""An evaluation function that leaves the mode to its callers, called once after eval() and once from a training
loop right after train() (MLD020): the author's own eval() before one call says the function needs it, and the
call that follows train() runs the model with dropout and batch statistics. The fix goes before that call.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import scope_calls
from .modes import EVAL, SET, TRAIN, key_of, position, related, switches
from .modes_evidence import named_for_evaluation, scope_trains
from .modes_handed_models import calls_by_ident
from .modes_indirect import runs_model

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def called_after_train(ctx: ModuleContext) -> Iterator[tuple[ast.stmt, str, str]]:
    """(statement of the call, the caller's name for the model, the evaluation function's name) for each call of
    an evaluation function of this file that follows a train() of its model, when another call of it follows
    an eval() (`self.net.eval(); self.test_epoch()` in test(), `self.net.train(); ...; self.test_epoch()` in
    the epoch loop of train())."""
    if not ctx.has_text("eval") or not ctx.has_text("train"):
        return
    by_name = calls_by_ident(ctx)
    for kind in FUNCS:
        for func in ctx.by_type.get(kind, ()):
            if not named_for_evaluation(func, ctx, file_too=False) or func.name not in by_name or scope_trains(
                    func, ctx) or switches(func, ctx):
                continue  # a function that sets its own mode, or trains, is not the callers' to set
            keys = {key_of(r) for c in scope_calls(func, ctx) if (r := runs_model(c, ctx)) is not None}
            for key in sorted(k for k in keys if k):
                yield from _train_callers(func, key, by_name[func.name], ctx)


def _train_callers(func: ast.AST, key: str, calls: list[ast.Call], ctx: ModuleContext):
    evaluated, training = False, []
    for call in calls:
        caller = ctx.scope_of(call)
        if caller is func or not isinstance(caller, FUNCS):
            continue
        name = _callers_name(func, call, key, caller, ctx)
        if name is None:
            continue
        before = [s for s in switches(caller, ctx) if position(s.node) < position(call) and related(s.key, name)]
        if before and before[-1].mode in (EVAL, SET):
            evaluated = True
        elif before and before[-1].mode == TRAIN and before[-1].key is not None:
            training.append((_statement(call, ctx), name))
    if evaluated:
        for stmt, name in training:
            yield stmt, name, func.name


def _callers_name(func: ast.AST, call: ast.Call, key: str, caller: ast.AST, ctx: ModuleContext) -> str | None:
    """`self.net` in a method of the same class; for a parameter, the plain name the caller hands in."""
    root, _, rest = key.partition(".")
    if root == "self":
        cls = ctx.enclosing_class(func)
        return key if cls is not None and ctx.enclosing_class(caller) is cls else None
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if root not in params:
        return None
    index = params.index(root) - (1 if params[:1] == ["self"] and isinstance(call.func, ast.Attribute) else 0)
    arg = call.args[index] if 0 <= index < len(call.args) else next(
        (k.value for k in call.keywords if k.arg == root), None)
    if arg is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    passed = key_of(arg)
    return passed + ("." + rest if rest else "") if passed else None


def _statement(call: ast.Call, ctx: ModuleContext) -> ast.AST:
    """The statement that makes the call: eval() goes on the line above it."""
    return next((a for a in ctx.ancestors(call) if isinstance(a, ast.stmt)), call)


def handed_to_another_object(func: ast.AST, ctx: ModuleContext) -> bool:
    """A function of this file never called here but handed by name to a method of an object whose code lies
    elsewhere (`trainer.eval(evaluate, model_file)`, `runner.run(predict_step)`): it runs in the mode that
    method sets, which this file cannot see."""
    if not isinstance(func, FUNCS) or ctx.enclosing_class(func) is not None:
        return False
    by_name = calls_by_ident(ctx)
    if any(isinstance(c.func, ast.Name) and c.func.id == func.name for c in by_name.get(func.name, ())):
        return False  # called here: its callers' modes are read
    return func.name in ctx.memo(("modes-handed-to-methods",), lambda: _handed_to_methods(by_name))


def _handed_to_methods(by_name: dict[str, list[ast.Call]]) -> frozenset[str]:
    """The bare names handed as arguments to a method call (`trainer.eval(evaluate, ...)`), once per module."""
    return frozenset(a.id for calls in by_name.values() for call in calls if isinstance(call.func, ast.Attribute)
                     for a in (*call.args, *(k.value for k in call.keywords)) if isinstance(a, ast.Name))
