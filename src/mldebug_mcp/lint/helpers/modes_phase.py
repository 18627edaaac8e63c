"""A step or epoch function shared by training and evaluation phases (MLD020).

`model.train()` runs whatever the phase, the model then runs for every phase, and only the update
(`loss.backward()`, `optimizer.step()`) sits under a phase test (`if phase == "train":`, `if is_train:`,
`if not evaluate:`): the other phase (validation) runs the model in training mode. The fix goes at the
switch: `model.train(phase == "train")`, or `model.eval()` for the other phase. Quiet when the switch
itself depends on the phase (`if phase == "train": model.train() else: model.eval()`), when another switch
of the model comes between it and the forward, or when the update is guarded by anything else
(gradient accumulation, a scaler flag).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import scope_calls, tokens
from .loops import is_backward, is_optimizer_step
from .modes import TRAIN, direct_switch, key_of, mode_before, position, related
from .modes_models import forward_receiver

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
PHASE_WORDS = {"train", "training", "phase", "mode", "split", "stage", "eval", "evaluate", "evaluation", "val",
               "valid", "validation", "validate", "test", "testing", "inference", "infer", "dev"}


def phase_gated_train_switches(ctx: ModuleContext) -> Iterator[tuple[ast.Call, str]]:
    """(the `.train()` call, the model's key) for each unconditional switch into training mode followed by a
    forward that runs in every phase and updates that all sit under a phase test."""
    if not ctx.has_text("backward"):
        return
    for call in ctx.by_type.get(ast.Call, ()):
        if type(call.func) is not ast.Attribute or call.func.attr != "train":
            continue
        direct = direct_switch(call)
        if direct is None or direct[1] != TRAIN or direct[0] is None:
            continue
        scope = ctx.scope_of(call)
        # a script's top-level epoch loop is read as a function's (its calls in order, defs excluded)
        if (isinstance(scope, FUNCS) or scope is ctx.tree) and _gated(call, direct[0], scope, ctx):
            yield call, direct[0]


def _gated(switch: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    if _phase_ifs(switch, scope, ctx):
        return False  # the switch itself depends on the phase
    after = position(switch)
    calls = [c for c in scope_calls(scope, ctx) if position(c) > after]
    updates = [c for c in calls if is_backward(c) or is_optimizer_step(c, ctx)]
    if not updates:
        return False
    guards = set()
    for update in updates:
        found = _phase_ifs(update, scope, ctx)
        if not found:
            return False  # an update that runs in every phase: this is training code
        # the innermost, and the branch: an outer `if phase != "test":` may hold the forward too
        guards.add((id(found[0]), _in_body(found[0], update, ctx)))
    for call in calls:
        receiver = forward_receiver(call, ctx)
        if receiver is None or not related(key_of(receiver), key):
            continue
        if any((id(g), _in_body(g, call, ctx)) in guards for g in _phase_ifs(call, scope, ctx)):
            continue  # runs in the training branch only (a forward in its `else:` is the other phase's)
        last = mode_before(call, key, scope, ctx)
        if last is not None and last.node is switch:
            return True
    return False


def _phase_ifs(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> list[ast.If]:
    """The `if` statements around `node` inside `scope` whose test reads a phase."""
    found = []
    for ancestor in ctx.ancestors(node):
        if ancestor is scope:
            break
        if isinstance(ancestor, ast.If) and _phase_test(ancestor.test):
            found.append(ancestor)
    return found


def _in_body(guard: ast.If, node: ast.AST, ctx: ModuleContext) -> bool:
    """Whether `node` lies in the `if` branch of `guard` (else in its `else:` branch, or in its test)."""
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is guard:
            return child in guard.body
        child = ancestor
    return False


def _phase_test(test: ast.expr) -> bool:
    """`phase == "train"`, `mode != "val"`, `is_train`, `not self.evaluate`, `args.split in ("train",)`; not the
    module's own `self.training` (a read of the mode itself)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and node.attr == "training":
            return False
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) for c in ast.walk(node)) and _words(node):
            return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Name | ast.Attribute) and _words(test)


def _words(expr: ast.AST) -> bool:
    names = [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(expr)
             if isinstance(n, ast.Name | ast.Attribute)]
    return any(PHASE_WORDS & set(tokens(n)) for n in names)
