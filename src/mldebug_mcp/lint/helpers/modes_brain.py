"""SpeechBrain's `Brain` sets its modules' modes around the methods a recipe overrides (MLD020 stays quiet).

`class Separation(sb.Brain)`: `Brain.fit()` calls `self.modules.train()` before each training epoch's
`fit_batch()` and `self.modules.eval()` (under no_grad) before the validation batches, and `Brain.evaluate()`
calls `self.modules.eval()` before `evaluate_batch()` and `on_stage_end()`; the recipe's `compute_forward()`
and `compute_objectives()` run inside those, and a `save_results()` the script calls after `evaluate()` finds
the modules still in eval mode. The models such methods run are reached through `self.modules`, or
`self.hparams` / `self.mods` (the recipe's YAML puts the same objects in `modules`): their mode is the
framework's, like a Lightning module's in its hooks. A class deriving from Brain through a base of this file
or of another file of the run (`class PIQ(InterpreterBrain)`, `from interpreter_brain import ...`) counts
too: the base's file tells `mode:@~brain:<module>.<Class>@<scope>` -> 'yes'.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .loader_facts import scoped, told_in_scope
from .modes_handed_models import key_of

MODE_FACT = "mode:"  # modes_facts' family (that module imports this one)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
BRAIN = re.compile(r"^speechbrain\.(core\.)?Brain$")
# the attributes of a Brain that hold the modules it switches (`mods`: the name of speechbrain's inference
# interfaces, which recipes reuse)
FRAMEWORK_HELD = {"modules", "hparams", "mods"}


def brain_switched(scope: ast.AST, key: str, receiver: ast.AST | None, ctx: ModuleContext) -> bool:
    """`self.hparams.Encoder(x)` (or `encoder = self.modules.encoder; encoder(x)`) in a method of a Brain
    subclass, or in a function nested in one: the Brain set the mode before calling it."""
    if not isinstance(scope, FUNCS) or not (_held(key) or receiver is not None and _held(
            key_of(ctx.resolve(receiver)) or "")):
        return False  # the cheap test first: most models are not held there
    cls = ctx.enclosing_class(scope)
    return cls is not None and brain_class(cls, ctx)


def _held(key: str) -> bool:
    parts = key.split(".")
    return len(parts) > 2 and parts[0] == "self" and parts[1] in FRAMEWORK_HELD


def brain_class(cls: ast.ClassDef, ctx: ModuleContext, ask: bool = True, seen: frozenset = frozenset()) -> bool:
    """The class derives from speechbrain's Brain: directly (`sb.Brain`, `sb.core.Brain`, `Brain` imported from
    speechbrain), through a class of this file, or (`ask`) through one another file of the run says does."""
    if cls.name in seen:
        return False
    for base in cls.bases:
        qualname = ctx.qualname(base) or ""
        if BRAIN.match(qualname):
            return True
        if isinstance(base, ast.Name) and base.id in ctx.classes and ctx.classes[base.id] is not cls:
            if brain_class(ctx.classes[base.id], ctx, ask, seen | {cls.name}):
                return True
            continue
        parts = qualname.lstrip(".").split(".") if qualname else _relative_base(base, ctx)
        if ask and len(parts) >= 2 and ctx.project is not None and told_in_scope(
                ctx, f"~brain:{parts[-2]}.{parts[-1]}", MODE_FACT) == "yes":
            return True
    return False


def _relative_base(base: ast.AST, ctx: ModuleContext) -> list[str]:
    from .modes_facts import relative_import  # it imports this module

    return (relative_import(base, ctx) or "").lstrip(".").split(".")


def _brain_classes(ctx: ModuleContext) -> list[str]:
    """The top-level classes of this file deriving from Brain, as far as this file tells (no project asked)."""
    if not ctx.has_text("Brain"):
        return []
    # what this file tells must not depend on what others told: no project asked
    return [name for name, cls in ctx.classes.items() if ctx.parent(cls) is ctx.tree and brain_class(cls, ctx, False)]


def brain_fact_keys(ctx: ModuleContext, module: str) -> set[str]:
    """The keys brain_facts may tell, without the analysis (what mode_fact_keys lists)."""
    if not ctx.has_text("Brain"):
        return set()
    names = [name for name, cls in ctx.classes.items() if ctx.parent(cls) is ctx.tree and cls.bases]
    scopes = [key.rsplit("@", 1)[-1] for key in scoped("~", "", ctx)] if names else []  # the folders, once
    return {f"{MODE_FACT}@~brain:{module}.{name}@{scope}" for name in names for scope in scopes}


def brain_facts(ctx: ModuleContext, module: str) -> dict[str, str]:
    """'yes' for each top-level class of this file that derives from Brain."""
    return {f"{MODE_FACT}{key}": "yes" for name in _brain_classes(ctx)
            for key in scoped(f"~brain:{module}.{name}", "yes", ctx)}
