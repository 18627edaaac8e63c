"""A learning-rate schedule built and never used (MLD076): dropped as a bare expression, or bound to a name that
nothing reads in the scope that binds it (a module-level name: nothing in the module); or built in a LightningModule
that optimises by hand (`self.automatic_optimization = False`), where Lightning steps no schedule, and never stepped
there (so-vits-svc-fork, blind split 12)."""

from __future__ import annotations

import ast

from ..context import ModuleContext

# torch's schedulers (torch.optim.lr_scheduler) and the transformers/diffusers schedule builders
TORCH_SCHEDULERS = frozenset({
    "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
    "OneCycleLR", "LambdaLR", "MultiplicativeLR", "LinearLR", "ConstantLR", "PolynomialLR", "SequentialLR",
    "ChainedScheduler", "ReduceLROnPlateau",
})
SCHEDULE_BUILDERS = frozenset({
    "get_scheduler", "get_linear_schedule_with_warmup", "get_cosine_schedule_with_warmup",
    "get_cosine_with_hard_restarts_schedule_with_warmup", "get_polynomial_decay_schedule_with_warmup",
    "get_constant_schedule", "get_constant_schedule_with_warmup", "get_inverse_sqrt_schedule",
    "get_cosine_with_min_lr_schedule_with_warmup", "get_wsd_schedule",
})
SCHEDULE_NAMES = TORCH_SCHEDULERS | SCHEDULE_BUILDERS
_LIBRARIES = ("transformers.", "diffusers.")


def builds_schedule(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The schedule's short name when `call` builds a torch scheduler or a transformers/diffusers schedule; also a
    class looked up by name in torch's module (`cls = getattr(lr_scheduler, name); cls(opt, **params)`)."""
    name = ctx.call_name(call) or ""
    short = name.rsplit(".", 1)[-1]
    if short in TORCH_SCHEDULERS and name.startswith("torch.optim.lr_scheduler."):
        return short
    if short in SCHEDULE_BUILDERS and name.startswith(_LIBRARIES):
        return short
    if isinstance(call.func, ast.Name):
        held = ctx.resolve(call.func)
        if (isinstance(held, ast.Call) and isinstance(held.func, ast.Name) and held.func.id == "getattr" and held.args
                and ctx.qualname(held.args[0]) == "torch.optim.lr_scheduler"):
            return "lr_scheduler class"
    return None


def unused_schedule(call: ast.Call, ctx: ModuleContext) -> str | None:
    """'dropped' when the built schedule is a bare expression statement, the name it is bound to when nothing in
    its scope reads that name, else None. Only in a module that trains (a backward somewhere): a configuration
    module's `lr_scheduler = StepLR(...)` is read by the script that imports it."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Expr):
        return "dropped" if _trains(ctx) else None
    manual = _manual_optimisation(call, ctx)
    if manual is not None:
        return manual or None
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    scope = ctx.scope_of(parent)
    if _read(scope, name) or not _trains(ctx):
        return None
    return name


MANUAL = "manual"  # unused_schedule's answer for a schedule Lightning is not told to step


def _manual_optimisation(call: ast.Call, ctx: ModuleContext) -> str | None:
    """For a schedule built in a LightningModule's configure_optimizers: when the class sets
    `self.automatic_optimization = False`, MANUAL if it never steps the schedule, else '' (stepped: nothing to
    report); `manual:<Subclass>` when a subclass in this file turns automatic optimisation off, keeps the inherited
    configure_optimizers and never steps it (matsciml's ForceRegressionTask, blind split 16); None otherwise."""
    cls = ctx.enclosing_class(call)
    if cls is None or not _defines(cls, "configure_optimizers"):
        return None
    parent = ctx.parent(call)
    if _optimises_by_hand(cls):
        return _unstepped_in(cls, parent, ctx) or ""
    for sub in _subclasses(cls, ctx):
        if _optimises_by_hand(sub) and not _defines(sub, "configure_optimizers") and _unstepped_in(sub, parent, ctx):
            return f"{MANUAL}:{sub.name}"
    return None


def _defines(cls: ast.ClassDef, method: str) -> bool:
    return any(isinstance(s, ast.FunctionDef) and s.name == method for s in cls.body)


def _optimises_by_hand(cls: ast.ClassDef) -> bool:
    return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is False
               and any(isinstance(t, ast.Attribute) and t.attr == "automatic_optimization" for t in node.targets)
               for node in ast.walk(cls))


def _subclasses(cls: ast.ClassDef, ctx: ModuleContext, depth: int = 3) -> list[ast.ClassDef]:
    """This file's classes that derive from `cls`, a few levels down."""
    found, names = [], {cls.name}
    for _ in range(depth):
        added = [c for c in ctx.classes.values() if c not in found and c is not cls
                 and any(isinstance(b, ast.Name) and b.id in names for b in c.bases)]
        if not added:
            break
        found += added
        names |= {c.name for c in added}
    return found


def _unstepped_in(cls: ast.ClassDef, parent: ast.AST, ctx: ModuleContext) -> str | None:
    """MANUAL when nothing in the class asks Lightning for its schedules (`self.lr_schedulers()`) nor steps the
    attribute the schedule is kept in."""
    kept = None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Attribute):
        kept = parent.targets[0].attr
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr == "lr_schedulers":
            return None
        if node.func.attr != "step":
            continue
        receiver = node.func.value
        # the attribute it is kept in stepped; else (built in the return) any receiver named like a schedule
        stepped = (isinstance(receiver, ast.Attribute) and receiver.attr == kept) if kept is not None \
            else "sched" in ast.unparse(receiver).lower()
        if stepped:
            return None
    return MANUAL


def _read(scope: ast.AST, name: str) -> bool:
    """Whether anything in `scope` (nested functions included) reads `name`, or may reach it by its name."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"locals", "vars", "eval"}:
            return True
    return False


def _trains(ctx: ModuleContext) -> bool:
    return bool(ctx.backward_scopes) or ctx.has_text("backward(")
