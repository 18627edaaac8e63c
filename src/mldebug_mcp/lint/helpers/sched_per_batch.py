"""A learning-rate schedule sized in epochs but stepped on every batch (MLD039).

`CosineAnnealingLR(optimizer, num_epochs)` (or StepLR's step_size, MultiStepLR's milestones,
CosineAnnealingWarmRestarts' T_0, given as an epoch count) with `scheduler.step()` inside the batch loop of an
epoch loop: the whole schedule passes in `num_epochs` batches, so the rate collapses (or restarts) within the
first epoch. A period computed from the loader's length (`epochs * len(loader)`) is per-batch on purpose.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .loops import LOOPS

# the argument that gives the schedule's length, by keyword; positionally it is the one after the optimiser
PERIODS = {"CosineAnnealingLR": "T_max", "StepLR": "step_size", "MultiStepLR": "milestones",
           "CosineAnnealingWarmRestarts": "T_0"}
EPOCH_WORD = re.compile(r"epoch", re.IGNORECASE)
BATCH_SOURCE = re.compile(r"loader|batch|iterator|dataset", re.IGNORECASE)


def epoch_schedule_stepped_per_batch(step: ast.Call, ctx: ModuleContext) -> tuple[str, str] | None:
    """(the scheduler class, the epoch count as written) when `step` steps such a scheduler inside a batch loop
    nested in another loop; else None."""
    if not (isinstance(step.func, ast.Attribute) and step.func.attr == "step") or step.args or step.keywords:
        return None
    built = ctx.resolve(step.func.value)
    if not isinstance(built, ast.Call):
        return None
    qualified = ctx.call_name(built) or ""
    name = qualified.rsplit(".", 1)[-1]
    if name not in PERIODS or "lr_scheduler" not in qualified:
        return None
    period = next((k.value for k in built.keywords if k.arg == PERIODS[name]), None)
    if period is None and len(built.args) > 1:
        period = built.args[1]
    if period is None or not _epoch_count(period):
        return None
    loops = [a for a in ctx.ancestors(step) if isinstance(a, LOOPS)]
    if len(loops) < 2 or not isinstance(loops[0], ast.For | ast.AsyncFor):
        return None
    if not BATCH_SOURCE.search(ast.unparse(loops[0].iter)):
        return None
    return name, ast.unparse(period)


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
