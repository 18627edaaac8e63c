import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.accum_counters import (
    backward_loss,
    counter_name,
    divisions,
    running_counter,
)
from ..helpers.loops import is_backward
from ..rule import Hit, Rule


class AccumulationDividedByRunningCount(Rule):
    """What it does: flags a loss divided, on its way to backward(), by a counter that runs through
    the micro-batches of gradient accumulation: `loss / (i + 1)` with `i` the index of the loop whose
    `if (i + 1) % k == 0:` steps, `loss / n` with `n += 1` each micro-batch and `if n >= k:` around the
    step (and the reset), or the variable of an inner `for micro in range(k)` loop followed by the step.

    Why is this bad: accumulation averages k micro-batches by dividing each loss by k. A running
    counter divides the first micro-batch by 1, the second by 2, ... the last by k, so early
    micro-batches weigh up to k times more and the step is larger than an average. Nothing fails.
    """

    code = "MLD019"
    name = "accumulation-divided-by-running-count"
    category = "optimiser"
    severity = "warning"
    message = "the loss is divided by the running micro-step counter {counter}, not by the number of accumulation steps"
    why = "Dividing by 1, 2, ..., k weights early micro-batches up to k times more than late ones: not an average."
    fix = "Divide every micro-batch's loss by the configured number of accumulation steps (a constant k)."
    evidence = "goyal/linear-scaling-and-warmup"
    node_types = (ast.Call,)
    call_names = frozenset({"backward", "manual_backward"})
    requires_text = ("backward",)
    BAD = (
        "def train(model, opt, loader, loss_fn, accum=4):\n"
        "    count = 0\n"
        "    for x, y in loader:\n"
        "        count += 1\n"
        "        loss = loss_fn(model(x), y) / count\n"
        "        loss.backward()\n"
        "        if count >= accum:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n"
        "            count = 0\n"
    )
    GOOD = BAD.replace("loss_fn(model(x), y) / count", "loss_fn(model(x), y) / accum")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not is_backward(node) and ctx.method_name(node) != "manual_backward":
            return
        loss = backward_loss(node, ctx)
        if loss is None:
            return
        reported = ctx.memo(("mld019.reported",), set)
        for division in divisions(loss, ctx, set()):
            counter = counter_name(division.right)
            key = (division.lineno, division.col_offset)
            if counter is None or key in reported or not running_counter(counter, node, ctx):
                continue
            reported.add(key)
            yield Hit(division, self.message.format(counter=f"`{ast.unparse(division.right)}`"))
