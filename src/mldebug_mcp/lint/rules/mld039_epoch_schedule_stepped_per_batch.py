import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.sched_per_batch import (
    EVERY_STEP,
    epoch_schedule_stepped_per_batch,
    handed_schedule_stepped_per_batch,
)
from ..rule import Hit, Rule


class EpochScheduleSteppedPerBatch(Rule):
    """What it does: flags `scheduler.step()` inside the batch loop of an epoch loop when the scheduler's
    length is an epoch count: `CosineAnnealingLR(optimizer, num_epochs)`, `StepLR(optimizer, step_size=
    args.decay_epochs)`, MultiStepLR milestones or CosineAnnealingWarmRestarts' T_0 given as epochs. A length
    computed from the loader (`epochs * len(loader)`) and a step after the batch loop are quiet. Also
    `StepLR(optimizer, step_size=1, gamma=g)` stepped per batch unless g is written as at least 0.99 (a decay at
    every step), and a schedule built in one file and handed to a training function of another file that steps it
    per batch (found at that step).

    Why is this bad: a scheduler counts its own step() calls, not epochs. Stepped once per batch, a cosine
    schedule meant to span the run reaches its floor after `num_epochs` batches and then climbs back, a step
    decay fires every few batches: the learning rate the run actually gets is nothing like the one configured,
    and training only looks unstable or stalls.
    """

    code = "MLD039"
    name = "epoch-schedule-stepped-per-batch"
    category = "optimiser"
    severity = "error"  # silent: the run trains with a learning rate nobody chose
    message = ("{scheduler} is sized in epochs ({period}) but stepped on every batch: its whole schedule passes "
               "in {period} batches")
    why = "A scheduler counts step() calls; sized in epochs and stepped per batch, it runs its schedule within an epoch."
    fix = "Step the scheduler once per epoch (after the batch loop), or size it in batches (epochs * len(loader))."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset({"step"})
    requires_text = ("lr_scheduler", "sched")  # the stepping file may only name its parameter `scheduler`
    BAD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn, num_epochs):\n"
        "    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, num_epochs)\n"
        "    for epoch in range(num_epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            loss_fn(model(x), y).backward()\n"
        "            opt.step()\n"
        "            sched.step()\n"
    )
    GOOD = BAD.replace("            sched.step()", "        sched.step()")  # once per epoch

    EVERY_STEP = ("{scheduler}(step_size=1) multiplies the learning rate by gamma at every step() and is stepped on "
                  "every batch: the rate shrinks geometrically batch after batch, not epoch after epoch{where}")
    HANDED = ("{scheduler} built at {where} is sized in epochs ({period}), but this function steps it on every "
              "batch: its whole schedule passes in {period} batches")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        found = epoch_schedule_stepped_per_batch(node, ctx)
        where = ""
        if found is None:
            handed = handed_schedule_stepped_per_batch(node, ctx)
            if handed is None:
                return
            found, where = handed[:2], handed[2]
        scheduler, period = found
        if period == EVERY_STEP:
            yield Hit(node, self.EVERY_STEP.format(scheduler=scheduler, where=f" (built at {where})" if where else ""))
        elif where:
            yield Hit(node, self.HANDED.format(scheduler=scheduler, period=period, where=where))
        else:
            yield Hit(node, self.message.format(scheduler=scheduler, period=period))
