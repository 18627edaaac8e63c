"""A learning-rate schedule sized in epochs but stepped on every batch (MLD039).

`CosineAnnealingLR(optimizer, num_epochs)` (or StepLR's step_size, MultiStepLR's milestones,
CosineAnnealingWarmRestarts' T_0, given as an epoch count) with `scheduler.step()` inside the batch loop of an
epoch loop: the whole schedule passes in `num_epochs` batches, so the rate collapses (or restarts) within the
first epoch. A period computed from the loader's length (`epochs * len(loader)`) is per-batch on purpose.
`StepLR(optimizer, step_size=1, gamma=g)` decays by g at every step: unless g is written as at least 0.99, stepped
per batch the rate shrinks geometrically within the first epoch (llama-recipes, blind split 13).

The schedule may be built in one file and stepped in another's training function it is handed to: the building
file tells `sched-epoch-handed:<function>` (which argument, which schedule) and the stepping file asks it.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from ...safe_read import inside
from ..context import ModuleContext
from .graph import callee
from .loader_facts import ANCESTORS, told_in_scope
from .loops import LOOPS

# the argument that gives the schedule's length, by keyword; positionally it is the one after the optimiser
PERIODS = {"CosineAnnealingLR": "T_max", "StepLR": "step_size", "MultiStepLR": "milestones",
           "CosineAnnealingWarmRestarts": "T_0"}
EPOCH_WORD = re.compile(r"epoch", re.IGNORECASE)
BATCH_SOURCE = re.compile(r"loader|batch|iterator|dataset", re.IGNORECASE)
EPOCH_HANDED = "sched-epoch-handed"  # project fact: `<function>` -> "index|keyword|class|period|where built"
SLOW_DECAY = 0.99  # a per-step gamma at least this close to 1 is meant per batch
EVERY_STEP = "1"  # the period text of StepLR(step_size=1): a decay at every step() call


def epoch_schedule_stepped_per_batch(step: ast.Call, ctx: ModuleContext) -> tuple[str, str] | None:
    """(the scheduler class, the epoch count as written) when `step` steps such a scheduler inside a batch loop
    nested in another loop; else None."""
    if not _bare_step(step) or not _per_batch(step, ctx):
        return None
    built = ctx.resolve(step.func.value)
    return epoch_period(built, ctx) if isinstance(built, ast.Call) else None


def handed_schedule_stepped_per_batch(step: ast.Call, ctx: ModuleContext) -> tuple[str, str, str] | None:
    """(class, period, where it is built) when `step` steps, per batch, a parameter of this file's top-level
    function that another file of the project hands an epoch-sized schedule (`train(..., scheduler, ...)`)."""
    if not _bare_step(step) or not isinstance(step.func.value, ast.Name):
        return None
    function = ctx.enclosing(step, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None or ctx.parent(function) is not ctx.tree:
        return None
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    name = step.func.value.id
    if name not in params or ctx.values_of(step.func.value, at=step) or not _per_batch(step, ctx):
        return None  # a parameter never rebound in the function
    told = told_in_scope(ctx, f"{EPOCH_HANDED}:{function.name}")
    if told is None:
        return None
    index, keyword, schedule, period, where = told.split("|", 4)
    if keyword != name and (keyword or int(index) != params.index(name)):
        return None
    return schedule, period, where


def handed_schedule_facts(ctx: ModuleContext) -> dict[str, str]:
    """`sched-epoch-handed:<function>` for each call of this file that hands an epoch-sized schedule built here to a
    function by name (of another file: one of this file is read where it steps)."""
    found: dict[str, str] = {}
    if not ctx.has_text("lr_scheduler"):
        return found
    # the epoch-sized schedules this file builds, first: most files that name lr_scheduler build none
    periods = {call: period for call in ctx.by_type.get(ast.Call, ())
               if "lr_scheduler" in (ctx.call_name(call) or "") and (period := epoch_period(call, ctx)) is not None}
    if not periods:
        return found
    for call in ctx.by_type.get(ast.Call, ()):
        if not isinstance(call.func, ast.Name) or call.func.id in ctx.functions:
            continue
        handed = [(str(i), "", a) for i, a in enumerate(call.args)] + [("-1", k.arg, k.value) for k in call.keywords
                                                                      if k.arg]
        for index, keyword, given in handed:
            built = ctx.resolve(given) if isinstance(given, ast.Name) else None
            period = periods.get(built)
            if period is not None:
                where = f"{os.path.basename(ctx.path)}:{built.lineno}"
                found.update(_told_to_callee(f"{EPOCH_HANDED}:{callee(call.func)}",
                                             "|".join((index, keyword, *period, where)), call, ctx))
    return found


def _told_to_callee(name: str, value: str, call: ast.Call, ctx: ModuleContext) -> dict[str, str]:
    """The fact told where the called function's file asks (its folder, loader_facts.asked_scopes): `train` from
    `from utils.train_utils import train` lives in `utils/train_utils.py` beside this file or in the nearest folder
    above that holds it (looked up on disk, inside the run's allow-list); nowhere when no such file exists."""
    module = (ctx.qualname(call.func) or "").split(".")[:-1]
    if not module:
        return {}
    folder = os.path.dirname(os.path.abspath(ctx.path))
    for _ in range(ANCESTORS + 1):
        if ctx.roots is not None and not inside(Path(folder), ctx.roots):
            break
        if os.path.isfile(os.path.join(folder, *module) + ".py"):
            return {f"@{name}@{os.path.join(folder, *module[:-1])}": value}
        if os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    return {}


def epoch_period(built: ast.Call, ctx: ModuleContext) -> tuple[str, str] | None:
    """(class, period as written) for a torch schedule whose length is an epoch count, or StepLR decaying at every
    step with a gamma not written as at least SLOW_DECAY (period "1")."""
    qualified = ctx.call_name(built) or ""
    name = qualified.rsplit(".", 1)[-1]
    if name not in PERIODS or "lr_scheduler" not in qualified:
        return None
    period = next((k.value for k in built.keywords if k.arg == PERIODS[name]), None)
    if period is None and len(built.args) > 1:
        period = built.args[1]
    if period is None:
        return None
    if _epoch_count(period) or name == "StepLR" and _every_step(period, built):
        return name, ast.unparse(period)
    return None


def _every_step(period: ast.expr, built: ast.Call) -> bool:
    """StepLR(step_size=1, gamma=g): a decay at every step, unless g is written as a slow one (0.999)."""
    if not (isinstance(period, ast.Constant) and period.value == 1 and not isinstance(period.value, bool)):
        return False
    gamma = next((k.value for k in built.keywords if k.arg == "gamma"), built.args[2] if len(built.args) > 2 else None)
    return not (isinstance(gamma, ast.Constant) and isinstance(gamma.value, int | float) and gamma.value >= SLOW_DECAY)


def _bare_step(step: ast.Call) -> bool:
    return isinstance(step.func, ast.Attribute) and step.func.attr == "step" and not step.args and not step.keywords


def _per_batch(step: ast.Call, ctx: ModuleContext) -> bool:
    """Inside a loop over batches that sits in another loop (the epochs)."""
    loops = [a for a in ctx.ancestors(step) if isinstance(a, LOOPS)]
    return len(loops) >= 2 and isinstance(loops[0], ast.For | ast.AsyncFor) \
        and bool(BATCH_SOURCE.search(ast.unparse(loops[0].iter)))


def _epoch_count(expr: ast.expr) -> bool:
    """A plain name or attribute naming an epoch count (`num_epochs`, `args.epochs`), or a list of them; not an
    expression (`epochs * len(loader)` is counted in batches)."""
    if isinstance(expr, ast.List | ast.Tuple):
        return bool(expr.elts) and all(_epoch_count(e) for e in expr.elts)
    if isinstance(expr, ast.Name):
        return bool(EPOCH_WORD.search(expr.id))
    if isinstance(expr, ast.Attribute):
        return bool(EPOCH_WORD.search(expr.attr))
    return False
