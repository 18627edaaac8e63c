import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.gan_zero_after import stale_discriminator_window
from ..helpers.loops import (
    CORRECT_TRAINING_LOOP,
    LOOPS,
    calls_in_order,
    is_backward,
    is_scheduler_step,
    is_zero_grad,
)
from ..helpers.optim_branches import (
    unzeroed_branch,
    unzeroed_loss_branch,
    unzeroed_manual_step,
    zeroed_only_sometimes,
)
from ..helpers.optim_closure import unzeroed_closure
from ..helpers.optim_handed_backward import unzeroed_handed_step
from ..helpers.optim_step_branch import steps_here, unzeroed_step_side
from ..helpers.optim_step_helpers import unzeroed_step_helper
from ..helpers.optim_twice_stepped import stale_second_window
from ..helpers.optim_steps import (
    call_sites,
    iteration,
    nested_loops,
    owner_of,
    top_statement,
    training_blocks,
    unconditional_in,
)
from ..helpers.optim_zero_window import never_true_reason, zero_never_true
from ..helpers.optim_zeroing import cleared, stepped_optimizer
from ..helpers.script_scope import trains_at_top
from ..rule import Hit, Rule


class MissingZeroGrad(Rule):
    """What it does: flags a loop that calls backward() and optimizer.step() but never clears
    the gradients (zero_grad(), or setting p.grad to None), also when the backward or the step
    runs in a helper of this module that the loop calls (`self.train_step(batch)`), and a branch
    that backwards and steps without the zero_grad() the other side of its `if` has (an AMP branch
    that zeroes, a plain branch that does not) or that computes the loss a backward after the `if`
    takes, and a Lightning `training_step` with manual optimisation (`self.manual_backward(loss)`,
    `opt.step()`) that never zeroes; a zero_grad() that runs only under a condition while the step runs
    every iteration, and `opt.zero_grad`
    written without parentheses; a closure handed to `optimizer.step(closure)` (LBFGS, or any
    optimiser stepped in a loop) that backwards without zeroing; an `if` whose two sides both step
    (`scaler.step(opt)` under AMP, `opt.step()` otherwise) while only one clears, in the loop or in the
    step method a trainer's loop calls; a zero_grad() that opens each accumulation window under
    `if it % k == 1:`, which never holds when k is 1; a GAN step whose discriminator optimiser is zeroed only
    after its own step while the generator's backward before it ran through the discriminator. In a script's
    top-level code: that GAN step, a side of an `if` that steps without clearing, a zero_grad() under a test
    that never holds. Also a step function that hands its optimiser to a helper which runs the backward (another
    file's `task.train_step(sample, model, criterion, self.optimizer)`, `optimizer.backward(loss)`) and then steps
    it, where nothing clears it (found at the hand-off). And an optimiser stepped twice in each iteration
    (a VAE update, then an adversarial one) but cleared before only one of its steps. The finding
    sits where the fix goes: at the step, or before the backward when the step is conditional
    or the backward runs in an inner (accumulation) loop.

    Why is this bad: PyTorch accumulates gradients across backward calls. Without clearing,
    every step applies the sum of all gradients so far; the loss may still fall for a while.
    """

    code = "MLD010"
    name = "missing-zero-grad"
    category = "optimiser"
    severity = "error"
    message = "optimizer step in a loop that never clears gradients (no zero_grad)"
    why = "Gradients accumulate across iterations, so each step uses the sum of all past gradients."
    fix = "Call optimizer.zero_grad(set_to_none=True) once per step, before loss.backward()."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    # a script's module is read as a step function: its top-level code is the step (a notebook cell, a tutorial)
    node_types = (*LOOPS, ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)
    # skip modules that cannot contain the pattern; a file with no backward may hand its optimiser to one elsewhere
    requires_text = ('backward', 'step')
    BAD = (
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        loss = loss_fn(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
    )
    GOOD = CORRECT_TRAINING_LOOP
    ONCE_OUTSIDE = ("zero_grad() runs once before this loop, which steps on every pass: each step after the "
                    "first adds up all earlier gradients")
    MANUAL = ("Lightning's manual optimisation never clears gradients for you: this training_step steps without "
              "zero_grad(), so every step adds up all earlier gradients")
    SOMETIMES = ("zero_grad() runs only under this condition while the optimizer steps on every iteration: "
                 "the steps in between add up all earlier gradients; clear them on every step")
    UNCALLED = "`zero_grad` without parentheses is never called: gradients are never cleared; write zero_grad()"
    BRANCH = ("this branch backwards and steps without clearing the gradients, unlike the other side of the `if` on "
              "line {line}: every iteration that takes it accumulates; call zero_grad() before this backward")
    SHARED_BACKWARD = ("this branch computes the loss that the backward after the `if` on line {line} takes, without "
                       "the zero_grad() the other side has: every iteration that takes it adds to the last gradients; "
                       "call zero_grad() in this branch too (or once before the `if`)")
    NEVER_TRUE = ("zero_grad() runs only when `{test}`, which never holds when {when} (a remainder is always "
                  "below its divisor): with one micro-batch per update the gradients are never cleared; also "
                  "clear when the divisor is 1")
    CLOSURE = ("the closure {name}() handed to the optimizer's step on line {line} runs a backward without "
               "clearing the gradients: each evaluation (LBFGS evaluates it many times per step) adds to the last; "
               "call zero_grad() at its top")
    STEP_SIDE = ("both sides of the `if` on line {line} step the optimizer but only one clears the gradients: every "
                 "step through the other side adds onto all earlier gradients; clear them after this `if`, where "
                 "both sides pass")
    BEFORE_BACKWARD = ("gradients are never cleared in this loop: call zero_grad() before this backward "
                       "(the optimizer steps on line {line})")

    HELPER = ("{name}() backwards and steps {opt} without clearing its gradients, and the loop that calls it ({where}) "
              "clears none either: every step adds up all earlier gradients; call {opt}.zero_grad() at its top")
    HANDED = ("{helper}() runs the backward on what {opt} is handed here, and {opt} steps after it, but nothing clears "
              "the gradients: every update adds onto all earlier ones; call {opt}.zero_grad() before this")
    STALE_D = ("{name} is zeroed only after its step, and the generator's backward before this runs through the "
               "discriminator: its gradients are still there and this step applies them; call {name}.zero_grad() "
               "before the discriminator's backward")

    TWICE = ("{name} steps twice in each iteration but is cleared before only one of its steps: the next step "
             "applies the gradients the backward before the other step left too; call zero_grad() here, before "
             "this update's backward")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not ctx.has_text("backward"):  # only a step function whose backward runs in another file's helper
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from self._handed(node, ctx)
            return
        if isinstance(node, ast.Module):
            yield from self._script(node, ctx)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            closure = unzeroed_closure(node, ctx)
            if closure is not None:
                yield Hit(closure[0], self.CLOSURE.format(name=node.name, line=closure[1].lineno))
                return
            step = unzeroed_manual_step(node, ctx)
            if step is not None:
                yield Hit(step, self.MANUAL)
                return
            stale = stale_discriminator_window(node, ctx)
            if stale is not None:
                yield Hit(stale[0], self.STALE_D.format(name=stale[1]))
                return
            trains = node in training_blocks(ctx)
            # the `if` may sit in a step helper the loop calls (`def optimizer_step(self): ...`), no backward in it
            sided = unzeroed_step_side(node, ctx) if trains or steps_here(node, ctx) else None
            if sided is not None:
                yield Hit(sided[0], self.STEP_SIDE.format(line=sided[1].lineno))
            elif trains:
                yield from self._never_true(node, ctx)
            if sided is None:  # a step helper called only by another file's loop
                helper = unzeroed_step_helper(node, ctx)
                if helper is not None:
                    yield Hit(helper[0], self.HELPER.format(name=node.name, opt=helper[1], where=helper[2]))
                    return
            # the backward runs in the helper it hands the optimiser to (a loop of this file that calls this
            # function reads it inlined)
            if not trains or not call_sites(node, ctx):
                yield from self._handed(node, ctx)
            return
        if node not in training_blocks(ctx):  # no backward inside, nor in a helper it calls
            return
        it = iteration(node, ctx)
        if not it.backwards or not it.steps or _zeroed_elsewhere(node, it, ctx):
            return
        if it.clears:  # a branch that backwards and steps without the zero_grad its sibling branch has
            found = None if it.opaque_zeros or it.manual else unzeroed_branch(node, ctx)
            shared = None if found is not None or it.opaque_zeros or it.manual else unzeroed_loss_branch(node, ctx)
            sided = None if found or shared or it.opaque_zeros or it.manual else unzeroed_step_side(node, ctx)
            if found is not None:
                yield Hit(found[0], self.BRANCH.format(line=found[1].lineno))
            elif shared is not None:
                yield Hit(shared[0], self.SHARED_BACKWARD.format(line=shared[1].lineno))
            elif sided is not None:
                yield Hit(sided[0], self.STEP_SIDE.format(line=sided[1].lineno))
            elif not it.opaque_zeros and not it.manual:
                rare = zeroed_only_sometimes(node, it, ctx)
                twice = stale_second_window(node, ctx) if rare is None else None
                if rare is not None:
                    yield Hit(rare, self.SOMETIMES)
                elif twice is not None:
                    yield Hit(twice[0], self.TWICE.format(name=twice[1]))
                else:
                    yield from self._never_true(node, ctx)
            return
        uncalled = next((n for n in ast.walk(node) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Attribute)
                         and n.value.attr == "zero_grad"), None)
        if uncalled is not None:  # `optimizer.zero_grad` without parentheses: nothing runs
            yield Hit(uncalled, self.UNCALLED)
            return
        # a loop inside this one (or in a helper it calls) that steps after its own backward is the
        # training iteration; it reports itself
        if any(iteration(inner, ctx).backwards and iteration(inner, ctx).steps for inner in nested_loops(node, ctx)):
            return
        step, via = it.steps[0]
        backward, backward_via = it.backwards[0]
        owner = owner_of(step, ctx)
        plain = unconditional_in(step, node if step is via else owner, ctx)
        accumulates = owner_of(backward, ctx) not in (node, None) and isinstance(owner_of(backward, ctx), LOOPS)
        if plain and not accumulates:  # zero_grad() goes right after the step (or before the backward)
            if step is via and _zeroed_before(node, ctx):  # the fix moves that zero_grad() into this loop's top
                yield Hit(node, self.ONCE_OUTSIDE)
            else:  # after the step, and after the scheduler's step that follows it (where the fix usually goes)
                yield Hit(_after_scheduler(step, ctx))
            return
        # the step may be skipped, or backward runs in an inner loop: zeroing belongs before the backward
        anchor = top_statement(backward_via, node.body, ctx) or backward
        # the statement inside the block; inside an `if` too when only its body backwards (`if train:`): the
        # zero_grad goes right before the statement that backwards there
        while isinstance(anchor, ast.With | ast.AsyncWith | ast.Try) or isinstance(anchor, ast.If) and not any(
                is_backward(c) for c in calls_in_order(anchor.orelse)):
            inner = top_statement(backward_via, anchor.body, ctx)
            if inner is None:
                break
            anchor = inner
        yield Hit(anchor, self.BEFORE_BACKWARD.format(line=step.lineno))

    def _script(self, module: ast.Module, ctx: ModuleContext) -> Iterator[Hit]:
        """A script's top-level code read as a step function's body: the discriminator zeroed after its step, a
        side of an `if` that steps without clearing, a zero_grad under a test that never holds."""
        trains = trains_at_top(ctx)
        stale = stale_discriminator_window(module, ctx) if trains else None
        if stale is not None:
            yield Hit(stale[0], self.STALE_D.format(name=stale[1]))
            return
        # the step cell of a notebook may step and clear with no backward of its own, as a step helper does
        sided = unzeroed_step_side(module, ctx) if trains or steps_here(module, ctx) else None
        if sided is not None:
            yield Hit(sided[0], self.STEP_SIDE.format(line=sided[1].lineno))
        elif trains:
            yield from self._never_true(module, ctx)

    def _handed(self, function: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        handed = unzeroed_handed_step(function, ctx)
        if handed is not None:
            yield Hit(handed[0], self.HANDED.format(helper=handed[2], opt=handed[1]))

    def _never_true(self, block: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        found = zero_never_true(block, ctx)
        if found is not None:
            zero, guard = found
            yield Hit(zero, self.NEVER_TRUE.format(test=ast.unparse(guard.test), when=never_true_reason(guard)))


def _zeroed_elsewhere(loop: ast.AST, it, ctx: ModuleContext) -> bool:
    """An enclosing loop that zeroes once per outer iteration counts as zeroing, unless this loop steps
    on every pass (several backward/step pairs per zero_grad: a critic loop, a batch loop in an epoch)."""
    step, via = it.steps[0]
    repeats = (unconditional_in(step, loop if step is via else owner_of(step, ctx), ctx)
               and not any(isinstance(n, ast.Break | ast.Return) for s in loop.body for n in ast.walk(s)))
    for ancestor in ctx.ancestors(loop):
        around = iteration(ancestor, ctx) if isinstance(ancestor, LOOPS) else None
        if around is not None and around.clears:
            if not repeats or not _loops(loop) or around.opaque_zeros or around.manual:
                return True
            optimizer = stepped_optimizer(step)
            # zeroed once for several steps: this rule's finding; zeroing only other optimisers: MLD017's
            return optimizer is None or not cleared(around.zeros, optimizer, ctx)
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            break
    return False


def _zeroed_before(loop: ast.AST, ctx: ModuleContext) -> bool:
    """A zero_grad() earlier in the same function (or an enclosing loop), outside this loop."""
    inside = set(ast.walk(loop))
    return any(is_zero_grad(c) and c.lineno < loop.lineno and c not in inside
               for c in ctx.in_scope(ctx.scope_of(loop), (ast.Call,)))


def _loops(loop: ast.AST) -> bool:
    """The loop may run more than once: not `for _ in range(1)` or over a one-element literal."""
    if isinstance(loop, ast.For):
        it = loop.iter
        if isinstance(it, ast.List | ast.Tuple) and len(it.elts) <= 1:
            return False
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and it.args \
                and all(isinstance(a, ast.Constant) for a in it.args) and len(range(*[a.value for a in it.args])) <= 1:
            return False
    return True


def _after_scheduler(step: ast.Call, ctx: ModuleContext) -> ast.AST:
    """The scheduler's step right after the optimiser's (`opt.step(); sched.step()`), else the step itself."""
    statement = ctx.parent(step)
    block = getattr(ctx.parent(statement), "body", None) if isinstance(statement, ast.Expr) else None
    if not block or statement not in block or block.index(statement) + 1 >= len(block):
        return step
    following = block[block.index(statement) + 1]
    if isinstance(following, ast.Expr) and isinstance(following.value, ast.Call) \
            and is_scheduler_step(following.value, ctx):
        return following
    return step
