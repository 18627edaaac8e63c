"""Where train() goes when the training loop cannot see the eval() it inherits (MLD021).

The loop calls a helper not named for evaluation that evaluates through another one
(`self.logs_and_checkpoints()` -> `self.evaluate()`), or that switches the model to eval as a side effect of
running it (`trigger.generate()`, an attack crafting each batch): its authors restore train() in the function
that switched, before it returns. An evaluation the loop calls itself (`validate()`) is restored right after
that call instead. Method calls on an object built here resolve to its class's method only.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import ident, tokens
from .loops import calls_in_order
from .modes import local_targets, position
from .modes_anchor import LastLine

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


# a call named so runs an evaluation: its caller sees the evaluation and restores train() after it
EVALUATING = {"evaluate", "eval", "evaluation", "validate", "validation", "test", "val", "valid", "dev", "score",
              "scores", "predict", "inference", "infer", "metric", "metrics", "benchmark", "accuracy"}


def own_targets(call: ast.Call, ctx: ModuleContext) -> list[ast.AST]:
    """The functions of this file a call may run; for `trigger.generate()` where `trigger` is built from a class
    of this file, only that class's method (two classes may both define generate())."""
    targets = local_targets(call, ctx)
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    built = ctx.constructed(receiver) if len(targets) > 1 and isinstance(receiver, ast.Name) else None
    if built in ctx.classes:
        mine = [t for t in targets if ctx.parent(t) is ctx.classes[built]]
        return mine or targets
    return targets


def helper_end(evaluation: ast.Call | None, call: ast.Call, where: ast.AST, loop: ast.AST,
               ctx: ModuleContext) -> ast.AST | None:
    """The last line of the function of this file whose eval() the loop's call leaves in force where the loop
    cannot see it: the loop calls a helper not named for evaluation, which evaluates through another one
    (`self.logs_and_checkpoints()` -> `self.evaluate()`) or switches as a side effect (`trigger.generate()`):
    train() goes there, before it returns. None when the eval() is the loop's own, the loop calls an
    evaluation (`validate()`, `self.eval_model()`: train() goes right after that call), or a train() right
    before the loop belongs at its top."""
    if evaluation is None or evaluation is call or where is loop.body[0]:
        return None
    function = next((a for a in ctx.ancestors(evaluation) if isinstance(a, FUNCS)), None)
    if function is None or any(a is function for a in ctx.ancestors(loop)):
        return None
    called = set(tokens(ident(call.func) or ""))
    if called & EVALUATING:
        return None  # the loop calls an evaluation (`self.eval_model()`): train() right after that call
    key = _receiver_key(evaluation)
    if not any(_uses(c, key) for c in calls_in_order(function.body) if position(c) > position(evaluation)):
        return None  # a mode helper (`net_mode(False)`) that runs nothing: not where train() goes
    return LastLine(function.body[-1]) if function.body[-1].end_lineno != function.body[-1].lineno else (
        function.body[-1])


def function_of(node: ast.AST, ctx: ModuleContext) -> str:
    function = next((a for a in ctx.ancestors(node) if isinstance(a, FUNCS)), None)
    return function.name if function is not None else "it"


def _receiver_key(call: ast.Call) -> str | None:
    value = call.func.value if isinstance(call.func, ast.Attribute) else None
    return ast.unparse(value) if isinstance(value, ast.Name | ast.Attribute) else None


def _uses(call: ast.Call, key: str | None) -> bool:
    """Runs the model (`model(x)`, `model.forward(x)`) or hands it on (`forward(self.model, x)`)."""
    func = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "forward" else call.func
    runs = isinstance(func, ast.Name | ast.Attribute) and ast.unparse(func) == key
    return runs or any(isinstance(a, ast.Name | ast.Attribute) and ast.unparse(a) == key for a in call.args)
