"""Models the file switches one by one as separate models (MLD020).

`model.train(); predictor.train()` in one scope says the author keeps two models (an encoder and a
head, a GNN and its link predictor) and switches each by name: `model.eval()` before an evaluation
then says nothing about `predictor`, which is not an alias of `model` (nobody switches an alias too).
So does `student.train(); teacher.eval()`: two models put in different modes are not one.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .modes import EVAL, TRAIN, direct_switch
from .modes_handed_models import calls_by_ident

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def switched_apart(key: str, other: str | None, ctx: ModuleContext) -> bool:
    """Whether one scope of the file switches both `key` and `other` by name, both to training mode or to
    different modes (`self.student.train(); self.teacher.eval()`), and neither owns the other
    (`model.train(); model.head.train()` is one model)."""
    if other is None or key == other or key.startswith(other + ".") or other.startswith(key + "."):
        return False
    return any(key in keys and other in keys for keys in _train_keys_per_scope(ctx))


def _train_keys_per_scope(ctx: ModuleContext) -> list[frozenset[str]]:
    def compute() -> list[frozenset[str]]:
        trained: dict[ast.AST, set[str]] = {}
        evaluated: dict[ast.AST, set[str]] = {}
        for name in ("train", "eval"):
            for call in calls_by_ident(ctx).get(name, ()):
                switch = direct_switch(call)
                if switch is not None and switch[1] in (TRAIN, EVAL) and switch[0] is not None:
                    found = trained if switch[1] == TRAIN else evaluated
                    found.setdefault(ctx.enclosing(call, FUNCS) or ctx.tree, set()).add(switch[0])
        # pairs trained together, or one trained and one evaluated in the same scope (a teacher beside its student)
        groups = [frozenset(keys) for keys in trained.values() if len(keys) > 1]
        groups += [frozenset({a, b}) for scope, keys in trained.items() for a in keys
                   for b in evaluated.get(scope, ()) if a != b]
        return groups
    return ctx.memo(("mld020", "train-keys-per-scope"), compute)


def built_after(key: str, switch_node: ast.AST, scope: ast.AST, ctx: ModuleContext, other: str | None) -> bool:
    """`model.eval()` (the other's switch), then `best_model = CNN().to(device)`: every binding of `key` in the
    scope is a fresh build after that switch from a call that is not handed the other model (`deepcopy(model)`,
    `load_best(model, path)` would return it, in its mode): the switch was made on another object."""
    values = ctx.bindings.get(scope, {}).get(key) if "." not in key else None
    root = (other or "").split(".")[0]
    if not values or not root:
        return False
    return all(isinstance(v, ast.Call) and v.lineno > switch_node.lineno and not any(
        isinstance(n, ast.Name) and n.id == root for n in ast.walk(v)) for v in values)
