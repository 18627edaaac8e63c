import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.sched_per_batch import epoch_schedule_stepped_per_batch
from ..rule import Hit, Rule


class EpochScheduleSteppedPerBatch(Rule):
    """What it does: flags `scheduler.step()` inside the batch loop of an epoch loop when the scheduler's
    length is an epoch count: `CosineAnnealingLR(optimizer, num_epochs)`, `StepLR(optimizer, step_size=
    args.decay_epochs)`, MultiStepLR milestones or CosineAnnealingWarmRestarts' T_0 given as epochs. A length
    computed from the loader (`epochs * len(loader)`) and a step after the batch loop are quiet.

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
    requires_text = ("lr_scheduler",)
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

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        found = epoch_schedule_stepped_per_batch(node, ctx)
        if found is not None:
            yield Hit(node, self.message.format(scheduler=found[0], period=found[1]))
