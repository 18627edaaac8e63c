import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.accum_every_pass import every_pass_step
from ..helpers.accum_never_one import steps_only_past_one
from ..helpers.accum_step_condition import first_value, flag_test, helper_test, modulo_test, step_guard
from ..helpers.accum_stray_step import stray_step
from ..helpers.loops import LOOPS
from ..rule import Hit, Rule


class AccumulationStepCondition(Rule):
    """What it does: flags the test that decides a gradient-accumulation step when it is inverted or off
    by one. The loop backwards on every pass and steps an optimiser under a modulo test: `if i % k:` or
    `if i % k != 0:` (also the step in the `else` of `if i % k == 0:`, or after `if i % k == 0: continue`)
    steps on k - 1 of every k micro-batches; `if i % k == 0:` after the backward with `i` counting from 0
    (`enumerate(loader)`, `range(n)`, `epoch * len(loader) + i`, a counter advanced after the test,
    Lightning's `batch_idx`) takes the first update after a single micro-batch; a second step of the same
    optimiser outside the test, on every pass (a leftover after the accumulation clause); a step on every pass
    of a loop that divides its loss by an accumulation count or tests one (`if step % grad_accum == 0:` around
    only the clip and the step counter). The test may also flush the last window (`i % k == 0 or i + 1 ==
    len(loader)`, for a count named for accumulation) or come from a helper method that returns it
    (`if self._at_boundary(step, n):`, reported at its return). A step under `if k > 1 and i % k == 0:`
    never runs with accumulation off (k = 1). `(i + 1) % k == 0`, and
    `i % k == 0` with `i` counting from 1, stay quiet.

    Why is this bad: the optimiser is meant to step once per k accumulated micro-batches. Inverted, it
    steps on almost every micro-batch with a loss scaled down by k (and never, when k is 1); off by one,
    the first window of every epoch (or run) is a single micro-batch. Training runs either way.
    """

    code = "MLD034"
    name = "accumulation-step-condition"
    category = "optimiser"
    severity = "warning"
    message = "the accumulation step test is inverted: the optimizer steps on every micro-batch except each k-th"
    why = "An accumulation loop should step once per k micro-batches; an inverted or off-by-one test changes the windows."
    fix = "Step under `if (i + 1) % k == 0:` with i counting from 0 (and after the last micro-batch of the loader)."
    evidence = "pytorch-tutorials/gradients-accumulate"
    node_types = (ast.If, *LOOPS)
    requires_text = ("%", "ccum")  # a modulo test, or an accumulation count (`loss /= grad_accum`)
    BAD = (
        "def train(model, opt, loader, loss_fn, accum=4):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = loss_fn(model(x), y) / accum\n"
        "        loss.backward()\n"
        "        if i % accum:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n"
    )
    GOOD = BAD.replace("if i % accum:", "if (i + 1) % accum == 0:")
    FIRST = ("`{test}` lets the step run on the first micro-batch ({counter} starts at 0) and the step follows the "
             "backward: the first update uses one micro-batch, not {divisor}; test `({counter} + 1) % {divisor} == 0`")
    OFFSET = ("`{test}` starts at {start} on the first micro-batch and the step follows the backward: the first "
              "update uses fewer than {divisor} micro-batches; count the micro-batches from 1")

    STRAY = ("this step runs on every micro-batch, besides the accumulation step under `{test}` on line {line}: the "
             "optimizer steps on every pass with partial gradients and the accumulation never happens; remove it")

    NEVER_ONE = ("the optimizer steps only when {count} > 1: with accumulation off ({count} = 1, no window) it "
                 "never steps and nothing trains; test only the remainder, `(i + 1) % {count} == 0`, which holds on "
                 "every micro-batch when {count} is 1")
    EVERY = ("the optimizer steps on every micro-batch although this loop accumulates gradients (`{sign}`): "
             "nothing is accumulated; step and zero the gradients only when the window of micro-batches is complete")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not isinstance(node, ast.If):
            found = every_pass_step(node, ctx)
            if found is not None:
                yield Hit(found[0], self.EVERY.format(sign=found[1]))
            return
        beyond_one = steps_only_past_one(node, ctx)
        if beyond_one is not None:
            yield Hit(beyond_one, self.NEVER_ONE.format(count=ast.unparse(beyond_one.left)))
            return
        # step_guard and stray_step both start from this test (an `if` on no remainder is neither): asked once
        remainder, source = modulo_test(node.test), None
        if remainder is None:  # a flag set from the test (`accumulating = step % k != 0`): reported where it is set
            remainder, source = flag_test(node.test, ctx) or helper_test(node.test, ctx) or (None, None)
        if remainder is None or isinstance(remainder.divisor, ast.Constant) and remainder.divisor.value in (0, 1):
            return
        guard = step_guard(node, ctx)
        if guard is None:
            stray = stray_step(node, ctx)
            if stray is not None:
                yield Hit(stray, self.STRAY.format(line=node.lineno, test=ast.unparse(node.test)))
            return
        test = guard.test
        if source is not None:  # the fix goes where the flag is set
            where, shown = ctx.parent(source) or node, ast.unparse(source)
        else:
            where, shown = node, ast.unparse(node.test)
        if not guard.steps_on_zero:
            if isinstance(test.divisor, ast.Constant) and test.divisor.value == 2:
                return  # `if i % 2:` with i from 0 steps after every second micro-batch: right for k = 2
            yield Hit(where)
            return
        if not (test.alone and guard.after_backward):
            return
        start = first_value(test.counter, node, ctx)
        if start is not None and (start == 0 or start >= 2):
            yield Hit(where, (self.FIRST if start == 0 else self.OFFSET).format(test=shown, counter=ast.unparse(test.counter),
                                              start=start, divisor=ast.unparse(test.divisor)))
