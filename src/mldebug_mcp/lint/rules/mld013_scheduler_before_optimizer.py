import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loader_facts import told_in_scope
from ..helpers.loops import LOOPS, calls_in_order
from ..helpers.optim_sched_helpers import handed_scheduler
from ..helpers.optim_sched_order import (
    SCHEDULER_CLASS,
    counts_ahead,
    in_start_hook,
    steps_out_of_sight,
)
from ..helpers.optim_steps import call_sites
from ..helpers.optim_values import optimizer_step, scheduler_step
from ..rule import Hit, Rule

# statements whose body always runs once reached; an `if` is a different branch
_EXITS = (ast.Return, ast.Break, ast.Continue, ast.Raise)
_START_EVENTS = (".EPOCH_STARTED", ".ITERATION_STARTED")
_PLAIN_BODIES = (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.Try)


class SchedulerBeforeOptimizer(Rule):
    """What it does: flags an lr_scheduler.step() (argument-free, or told a step count already
    one ahead: `self.num_updates += 1` then `step(epoch=self.num_updates)`, `step(epoch + 1)`) that runs before the
    optimizer.step() of the same iteration: the scheduler first (possibly under an `if`, the
    optimiser step after that `if` or in the batch loop that follows) and no optimiser step
    earlier in that iteration; or a scheduler stepped in a pytorch-ignite handler for
    EPOCH_STARTED / ITERATION_STARTED, or in a hook named as run when an epoch, batch or step starts
    (`before_step`, `on_train_batch_start`).

    Why is this bad: since PyTorch 1.1 the scheduler must step after the optimiser. Stepping it
    first skips the schedule's initial value and moves every change one step early; PyTorch only
    prints a warning, and training carries on with the shifted schedule.
    """

    code = "MLD013"
    name = "scheduler-before-optimizer"
    category = "optimiser"
    severity = "warning"
    message = "scheduler.step() runs before optimizer.step() in the same iteration"
    why = "The first learning rate of the schedule is skipped and every change happens one step early."
    fix = "Call optimizer.step() first, then scheduler.step() (per batch, or once per epoch after the batch loop)."
    evidence = "pytorch-docs"
    node_types = (ast.Expr,)
    requires_text = ('step',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def train(model, loader, loss_fn):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss_fn(model(x), y).backward()\n"
        "        sched.step()\n"
        "        opt.step()\n"
    )
    GOOD = BAD.replace("        sched.step()\n        opt.step()\n", "        opt.step()\n        sched.step()\n")
    HANDLER = ("scheduler.step() in a handler run when an epoch or iteration starts, before that epoch's "
               "optimizer steps")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        call = node.value
        if not isinstance(call, ast.Call):
            return
        stepped = scheduler_step(call, ctx)
        handed = handed_scheduler(call, ctx) if not stepped else None
        if handed is not None:  # `update_lr(scheduler, epoch)`: a project function that steps the scheduler
            if _is_lr_scheduler(handed, ctx) and _step_follows(node, ctx):
                yield Hit(call)
            return
        if not stepped and not _stepped_at_start(node, ctx):
            return
        if (call.args or call.keywords) and not counts_ahead(call, ctx):
            return  # sched.step(val_loss) is ReduceLROnPlateau; its order does not matter
        if not _is_lr_scheduler(call.func.value, ctx):
            return
        if _in_start_handler(node, ctx) or in_start_hook(node, ctx) and not _stepped_before(node, ctx):
            # the fix moves the step to the hook run after the period's updates: at the hook's `def` line
            hook = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, *LOOPS))
            yield Hit(hook if isinstance(hook, ast.FunctionDef | ast.AsyncFunctionDef) else call, self.HANDLER)
            return
        if _step_follows(node, ctx):
            yield Hit(call)


def _stepped_at_start(node: ast.Expr, ctx: ModuleContext) -> bool:
    """`x.step()` in an ignite handler run when an epoch or iteration starts, on a value nothing shows is an
    optimiser (none is stepped without a backward): only a scheduler steps there, whatever it is called."""
    call = node.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step") or call.args or call.keywords:
        return False
    receiver = call.func.value
    return (isinstance(receiver, ast.Name | ast.Attribute) and not ctx.constructed(receiver)
            and not optimizer_step(call, ctx) and _in_start_handler(node, ctx))


def _step_follows(node: ast.stmt, ctx: ModuleContext, depth: int = 2) -> bool:
    """No optimiser step earlier in this iteration, and one later: in the same block, after the
    if/with/try the statement sits in, or (when the function ends first) after each place a caller of
    this module runs the function (`self.pre_epoch()` then `train_model(optimizer=...)`)."""
    if _stepped_before(node, ctx):
        return False
    current: ast.AST = node
    while (parent := ctx.parent(current)) is not None:
        block = _block_of(parent, current)
        later = block[block.index(current) + 1:] if current in block else []
        for stmt in later:
            if _steps_optimizer(stmt, ctx):
                return True
            if isinstance(stmt, _EXITS):
                return False  # the iteration ends before any step
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and depth > 0:
            return any(_step_follows(site_stmt, ctx, depth - 1) for site in call_sites(parent, ctx)
                       if (site_stmt := ctx.enclosing(site, (ast.stmt,))) is not None)
        if not isinstance(parent, ast.If | ast.With | ast.AsyncWith | ast.Try):
            return False
        if isinstance(parent, ast.If) and _skips_first_iteration(parent.test, ctx):
            return False  # `if epoch > 0: sched.step()` steps after the previous epoch's optimiser steps
        current = parent
    return False


def _skips_first_iteration(test: ast.expr, ctx: ModuleContext) -> bool:
    """`epoch > 0`, `i >= 1`, `step != 0`, or a bare loop counter: false on the first iteration. Also
    `epoch > start_epoch` in `while epoch < n:` when `epoch = start_epoch` starts it (mace's SWA scheduler)."""
    counters = {n.id for loop in ctx.ancestors(test) if isinstance(loop, ast.For)
                for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    if isinstance(test, ast.Name):
        return test.id in counters
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    op, bound = test.ops[0], test.comparators[0]
    if isinstance(bound, ast.Constant):
        value = bound.value
        return (isinstance(test.left, ast.Name) and test.left.id in counters
                and (isinstance(op, ast.Gt | ast.NotEq) and value == 0 or isinstance(op, ast.GtE) and value == 1))
    return isinstance(op, ast.Gt | ast.NotEq) and _starts_at(test.left, bound, test, ctx)


def _starts_at(counter: ast.expr, start: ast.expr, test: ast.expr, ctx: ModuleContext) -> bool:
    """`counter` is the counter of a `while` loop around `test` (named in its condition) and was set to `start`
    before that loop."""
    if not isinstance(counter, ast.Name):
        return False
    loop = next((a for a in ctx.ancestors(test) if isinstance(a, ast.While)
                 and any(isinstance(n, ast.Name) and n.id == counter.id for n in ast.walk(a.test))), None)
    if loop is None:
        return False
    first = ctx.values_of(counter, at=loop)
    return bool(first) and ast.dump(first[0]) == ast.dump(start)


def _in_start_handler(stmt: ast.stmt, ctx: ModuleContext) -> bool:
    """The step is in a pytorch-ignite handler run when an epoch or an iteration starts, before the
    engine's update steps the optimiser: `@trainer.on(Events.EPOCH_STARTED)`, or a function handed to
    `add_event_handler(Events.ITERATION_STARTED, fn)`."""
    function = ctx.enclosing(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    events = [d.args[0] for d in function.decorator_list if isinstance(d, ast.Call) and d.args
              and ctx.method_name(d) == "on"]
    for call in ctx.by_type.get(ast.Call, ()):
        if (ctx.method_name(call) == "add_event_handler" and len(call.args) >= 2
                and isinstance(call.args[1], ast.Name) and call.args[1].id == function.name):
            events.append(call.args[0])
    return any((ctx.qualname(e) or "").startswith("ignite.") and (ctx.qualname(e) or "").endswith(_START_EVENTS)
               for e in events)


def _is_lr_scheduler(receiver: ast.AST, ctx: ModuleContext) -> bool:
    if _built_from_literals(receiver, ctx):
        return False
    built = _built_as(receiver, ctx)
    return not built or any(_lr_scheduler_class(b, ctx) for b in built)


def _built_from_literals(receiver: ast.AST, ctx: ModuleContext) -> bool:
    """Each value the name holds is a call, of anything but torch, given only constants (numbers, strings,
    negated numbers: `KLAnnealer(1000)`, an imported `Annealer(0.0, 1.0, 5000)`): it never holds an optimiser, so
    its step sets no learning rate (a KL weight, a teacher-forcing ratio)."""
    values = ctx.values_of(receiver) if isinstance(receiver, ast.Name) else []
    return bool(values) and all(
        isinstance(v, ast.Call) and not (ctx.qualname(v.func) or "").startswith("torch.")
        and all(isinstance(a.operand if isinstance(a, ast.UnaryOp) else a, ast.Constant)
                for a in [*v.args, *(k.value for k in v.keywords)])
        for v in values)


def _built_as(receiver: ast.AST, ctx: ModuleContext) -> list[str]:
    """The classes the scheduler is built from: here, or, for a parameter (`def train(..., scheduler)`), at each
    call of that function in this file (`train(..., CycleScheduler(...))`, a name holding one)."""
    built = ctx.constructed(receiver)
    if built or not isinstance(receiver, ast.Name):
        return [built] if built else []
    function = ctx.enclosing(receiver, (ast.FunctionDef, ast.AsyncFunctionDef))
    params = [a.arg for a in function.args.posonlyargs + function.args.args] if function is not None else []
    if receiver.id not in params or ctx.values_of(receiver):
        return []
    index = params.index(receiver.id) - (1 if params[:1] in (["self"], ["cls"]) else 0)
    found = []
    for site in call_sites(function, ctx):
        given = next((k.value for k in site.keywords if k.arg == receiver.id),
                     site.args[index] if 0 <= index < len(site.args) else None)
        name = ctx.constructed(given) if given is not None else None
        if name is None:
            return []  # some call hands a scheduler built elsewhere: unknown
        found.append(name)
    return found


def _lr_scheduler_class(built: str, ctx: ModuleContext) -> bool:
    if "diffusers" in built and ".optimization." not in built or built.endswith("ReduceLROnPlateau"):
        return False  # diffusion noise schedulers (get_scheduler of diffusers.optimization is torch's LambdaLR);
        # plateau schedulers step on a metric
    short = built.rsplit(".", 1)[-1]
    cls = ctx.classes.get(short)
    if cls is not None:  # a local class: only an LR scheduler subclass counts (not a KL annealer)
        return any("LRScheduler" in (ctx.qualname(b) or "") or "lr_scheduler" in (ctx.qualname(b) or "")
                   for b in cls.bases)
    # a project's own scheduler class of another file (no base: it sets the lr for the coming optimiser step)
    return built.startswith("torch.") or told_in_scope(ctx, f"{SCHEDULER_CLASS}:{short}") != "own"


def _block_of(parent: ast.AST, stmt: ast.stmt) -> list[ast.stmt]:
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and stmt in block:
            return block
    return [stmt]


def _stepped_before(stmt: ast.stmt, ctx: ModuleContext) -> bool:
    """An optimiser step earlier in the same iteration: this scheduler belongs after it."""
    current = stmt
    while True:
        parent = ctx.parent(current)
        if parent is None:
            return False
        block = _block_of(parent, current)
        earlier = block[: block.index(current)] if current in block else []
        if any(optimizer_step(c, ctx) for c in calls_in_order(earlier)) or any(
                steps_out_of_sight(s, ctx) for s in earlier):
            return True
        if isinstance(parent, LOOPS + (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return False  # the iteration (or the function) starts here
        current = parent


def _steps_optimizer(stmt: ast.stmt, ctx: ModuleContext) -> bool:
    """The statement always steps the optimiser (directly, or in a with/loop/try body)."""
    if isinstance(stmt, _PLAIN_BODIES):
        return any(_steps_optimizer(s, ctx) for s in stmt.body)
    if isinstance(stmt, ast.Expr | ast.Assign) and isinstance(stmt.value, ast.Call):
        return optimizer_step(stmt.value, ctx) or steps_out_of_sight(stmt, ctx)
    return False
