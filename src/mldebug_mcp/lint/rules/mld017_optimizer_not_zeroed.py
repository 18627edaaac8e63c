import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import LOOPS, calls_in_order, is_optimizer_step
from ..helpers.optim_manual import manual_backwards, zero_follows_step, zero_precedes_backward
from ..helpers.optim_handoff import never_stepped, optimizer_passed_twice, sometimes
from ..helpers.optim_steps import (
    FUNCTIONS,
    enclosing_iterations,
    iteration,
    owner_of,
    top_statement,
    training_blocks,
)
from ..helpers.optim_zeroing import cleared, keys, stepped_optimizer
from ..helpers.script_scope import trains_at_top
from ..rule import Hit, Rule


class OptimizerNotZeroed(Rule):
    """What it does: flags an optimiser stepped in a training iteration that clears gradients with
    zero_grad() for other optimisers or modules but never for this one: a GAN step that zeroes the
    generator and not the discriminator, a student optimiser stepped in a loop where only the
    teachers' optimisers are zeroed. `netD.zero_grad()` counts for an optimiser built on
    `netD.parameters()` (or held as `netD.optimizer`); an optimiser whose parameters cannot be read
    counts as cleared by any module's zero_grad(). The finding sits where the zero_grad() goes:
    after the previous optimiser's step, else at this optimiser's first backward. Also flags one
    optimiser handed to a local training function for two of its optimiser parameters
    (`train(..., g_optimizer, g_optimizer)` for `def train(..., g_optimizer, d_optimizer)`): the second
    one is then never zeroed nor stepped; and an optimiser zeroed only under an `if` while it steps every
    iteration (the finding sits at that zero_grad()); and an optimiser zeroed in a block that
    back-propagates and steps another one, but never stepped anywhere in the file. An optimiser zeroed under a
    flag and again under its negation (detectron2's `zero_grad_before_forward`) is zeroed every iteration, and a
    wrapper holding or built from the zeroed optimiser (a Noam schedule's `self.opt.optimizer.zero_grad()` before
    `self.opt.step()`) steps the gradients that zero_grad() clears: both quiet. A script's top-level code
    is read as one step: an optimiser there is flagged only when two backwards run before its step. A Lightning
    `training_step` with manual optimisation (`self.manual_backward(loss)`) is a training iteration too.

    Why is this bad: gradients accumulate until something clears them. The zero_grad() calls that are
    there make the loop look right, but this optimiser steps on the sum of every backward so far (and on
    the gradients other losses left on its parameters), so its updates grow and drift. Training runs.
    """

    code = "MLD017"
    name = "optimizer-not-zeroed"
    category = "optimiser"
    severity = "error"  # silent: the updates are wrong and nothing fails
    message = "{opt} steps in an iteration that zeroes {others} but never {opt}: its gradients accumulate"
    why = "This optimiser's gradients are never cleared, so every step uses the sum of all earlier backwards."
    fix = "Call zero_grad() on this optimiser (or on the module it optimises) once per step, before its backward."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    # a script's top-level step (a notebook cell) is read as a step function's body
    node_types = (*LOOPS, *FUNCTIONS, ast.Module)
    requires_text = ("zero_grad",)  # the rule is about the optimiser left out where others are zeroed
    BAD = (
        "def train(G, D, opt_g, opt_d, loader, d_loss, g_loss):\n"
        "    for real in loader:\n"
        "        fake = G(real)\n"
        "        d_loss(D(real), D(fake.detach())).backward()\n"
        "        opt_d.step()\n"
        "        opt_g.zero_grad()\n"
        "        g_loss(D(fake)).backward()\n"
        "        opt_g.step()\n"
    )
    GOOD = BAD.replace("        fake = G(real)\n", "        fake = G(real)\n        opt_d.zero_grad()\n")

    TWICE = ("{arg} is passed as both {first} and {second}: the optimiser meant for {second} is never zeroed "
             "nor stepped, and {arg} is zeroed and stepped twice")

    SOMETIMES = ("{opt} is zeroed only under this condition but steps every iteration: on the other iterations "
                 "it steps on gradients summed since the last zero_grad()")

    NEVER = ("{opt} is zeroed and its network back-propagated, but nothing ever steps {opt}: that network "
             "never trains (optimizer.step() missing after this backward)")

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        for statement, name in never_stepped(ctx):
            yield Hit(statement, self.NEVER.format(opt=name))
        for call in ctx.by_type.get(ast.Call, ()):
            if len(call.args) + len(call.keywords) >= 2:
                found = optimizer_passed_twice(call, ctx)
                if found is not None:
                    argument, second, first = found
                    yield Hit(argument, self.TWICE.format(arg=ast.unparse(argument), first=first, second=second))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        # Lightning's manual optimisation back-propagates through self.manual_backward(loss): no .backward() here
        lightning = isinstance(node, FUNCTIONS) and ctx.has_text("manual_backward") and bool(manual_backwards(node, ctx))
        if not (lightning or (trains_at_top(ctx) if node is ctx.tree else node in training_blocks(ctx))):
            return  # no backward inside, nor in a helper it calls
        if isinstance(node, FUNCTIONS) and node.name.startswith("test"):
            return  # a test function runs once: only a loop inside it repeats the step (checked as that loop)
        it = iteration(node, ctx)
        backwards = _backwards(node, it, ctx)
        if not backwards or not it.steps or it.opaque_zeros or it.manual:
            return
        around = list(enclosing_iterations(node, ctx))
        if any(a.opaque_zeros or a.manual for a in around):
            return
        zeros = it.zeros + [z for a in around for z in a.zeros]
        if not zeros:
            return  # nothing is zeroed anywhere: MLD010's finding
        reported: set[str] = set()
        for step, via in it.steps:
            # a step of this block, or (for a loop) of a local helper it calls: the helper's own check sees no
            # zeroing around it, the loop does (`self.update_critic(...)` next to `self.update_actor(...)`)
            where = node if step is via else ctx.enclosing(step, FUNCTIONS) if isinstance(node, LOOPS) or lightning \
                else None
            owner = owner_of(step, ctx) or ctx.tree  # a step at a script's top level: the module's own
            optimizer = stepped_optimizer(step) if where is not None and owner is where else None
            if optimizer is None or _engine(optimizer, backwards):
                continue
            if node is ctx.tree and sum(via.lineno < step.lineno for _, via in backwards) < 2:
                continue  # a script's top level runs once: with one backward before it, the step sees no stale sum
            names = keys(optimizer, ctx)
            always = [z for z in zeros if not sometimes(z, step, node, ctx)]
            if names & reported or cleared(always, optimizer, ctx):
                continue
            reported |= names
            skipped = [z for z in zeros if z not in always and cleared([z], optimizer, ctx)]
            if skipped:  # the fix is to take this zero_grad() out of its `if`
                yield Hit(skipped[0], self.SOMETIMES.format(opt=ast.unparse(optimizer)))
                continue
            others = ", ".join(sorted({ast.unparse(z.func.value) for z in zeros}))
            message = self.message.format(opt=ast.unparse(optimizer), others=others)
            # the other optimisers are cleared right after their steps: this one's zero_grad() goes after its step
            after = any(zero_follows_step(z, it) for z in always)
            # ... or right before their backwards: this one's goes before its own backward
            before = not after and any(zero_precedes_backward(z, it, backwards) for z in always)
            yield Hit(step if after and step is via else _anchor(where, step, ctx, before), message)


def _engine(stepped: ast.expr, backwards: list[tuple[ast.Call, ast.Call]]) -> bool:
    """A training engine that back-propagates the loss it is handed and steps itself (DeepSpeed's
    `model.backward(loss); model.step()`, which clears the gradients inside its step; VideoMAE's fine-tuning loop): not
    an optimiser left uncleared. An optimiser-like name doing both (fairseq's `optimizer.backward(loss)`) is not one."""
    text = ast.dump(stepped)
    return "opt" not in ast.unparse(stepped).lower() and any(
        isinstance(call.func, ast.Attribute) and call.args and ast.dump(call.func.value) == text for call, _ in backwards)


def _anchor(node: ast.AST, step: ast.Call, ctx: ModuleContext, at_backward: bool = False) -> ast.AST:
    """Where the zero_grad() goes: the statement after the previous optimiser's step (this optimiser's
    part of the iteration starts there), else (or when the others are cleared right before their backwards)
    the first statement of this part that runs a backward."""
    block = node.body
    last = top_statement(step, block, ctx)
    if last is None:
        return step
    earlier = block[: block.index(last)]
    stepped = [i for i, stmt in enumerate(earlier) if any(is_optimizer_step(c, ctx) for c in calls_in_order([stmt]))]
    if stepped and not at_backward:
        return block[stepped[-1] + 1]
    if stepped:
        earlier = earlier[stepped[-1] + 1:]
    backwards = _backwards(node, iteration(node, ctx), ctx)
    for stmt in [*earlier, last]:
        if any(via in set(calls_in_order([stmt])) for _, via in backwards):
            while isinstance(stmt, ast.With | ast.AsyncWith | ast.Try):
                inner = next((s for s in stmt.body if any(via in set(calls_in_order([s])) for _, via in backwards)),
                             None)
                if inner is None:
                    break
                stmt = inner
            return stmt
    return step


def _backwards(node: ast.AST, it, ctx: ModuleContext) -> list[tuple[ast.Call, ast.Call]]:
    """The block's backwards; a Lightning step function's `self.manual_backward(loss)` calls when it has no other."""
    if it.backwards or not isinstance(node, FUNCTIONS) or not ctx.has_text("manual_backward"):
        return it.backwards
    return manual_backwards(node, ctx)
