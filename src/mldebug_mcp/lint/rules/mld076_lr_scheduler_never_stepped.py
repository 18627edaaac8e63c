import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.sched_unstepped import MANUAL, SCHEDULE_NAMES, builds_schedule, unused_schedule
from ..rule import Hit, Rule


class LrSchedulerNeverStepped(Rule):
    """What it does: flags a learning-rate schedule (torch's `lr_scheduler` classes, transformers' and diffusers'
    `get_*_schedule*` builders) that is built and never used: a bare expression statement, or a name nothing in
    its scope reads (not stepped, not handed on, not returned), in a module that trains; and one built in a
    LightningModule with `self.automatic_optimization = False` that neither calls `self.lr_schedulers()` nor steps
    the schedule itself (Lightning steps schedules only under automatic optimisation), also when the schedule is
    built in a base class's configure_optimizers and a subclass in the file turns automatic optimisation off
    without stepping it; a class looked up by name in torch's module (`getattr(lr_scheduler, name)(opt)`)
    counts as a schedule. A configuration module
    with no backward (a script imports its schedule) is left alone.

    Why is this bad: the schedule changes the learning rate only when its `step()` runs. Built and never stepped,
    it sets the rate once, to the schedule's first value, and leaves it there: the decay, restarts or warmup the
    run was configured with never happen. Warmup schedules start at a fraction of the rate (transformers' linear
    warmup at 0), so the optimiser may barely move at all.
    """

    code = "MLD076"
    name = "lr-scheduler-never-stepped"
    category = "optimiser"
    severity = "warning"
    message = "{what}: the learning rate stays at the schedule's first value for the whole run"
    why = "A schedule moves the learning rate only in step(); never stepped, it fixes the rate at its first value."
    fix = "Call scheduler.step() once per iteration or epoch, as the schedule is sized, after optimizer.step()."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    # a schedule class by name, or one held in a name (`scheduler_class = getattr(lr_scheduler, name)`)
    call_names = staticmethod(lambda name: name in SCHEDULE_NAMES or "sched" in name.lower())
    requires_text = ("lr_scheduler", "schedule")
    BAD = (
        "import torch\n"
        "def train(model, loader, loss_fn, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            loss_fn(model(x), y).backward()\n"
        "            optimizer.step()\n"
    )
    GOOD = BAD + "        scheduler.step()\n"

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        schedule = builds_schedule(node, ctx)
        if schedule is None:
            return
        unused = unused_schedule(node, ctx)
        if unused is not None:
            if unused == "dropped":
                what = f"this {schedule} is built and dropped"
            elif unused == MANUAL:
                what = (f"this {schedule} belongs to a LightningModule that optimises by hand "
                        "(automatic_optimization = False), where Lightning steps no schedule, and the module never "
                        "steps it")
            elif unused.startswith(MANUAL + ":"):
                what = (f"this {schedule} is inherited by {unused.partition(':')[2]}, which optimises by hand "
                        "(automatic_optimization = False), where Lightning steps no schedule, and never steps it")
            else:
                what = f"`{unused}` ({schedule}) is built but never stepped, handed on or returned"
            yield Hit(node, self.message.format(what=what))
