import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import calls_in_order, is_any_backward, is_zero_grad, leaves_before_later_code
from ..helpers.optim_values import optimizer_step
from ..helpers.script_scope import trains
from ..rule import Hit, Rule


class ZeroGradBeforeStep(Rule):
    """What it does: flags zero_grad() called after backward() (or Lightning's `self.manual_backward(loss)`)
    and before optimizer.step() in the same block. A zero_grad() after a step that followed the backward clears
    gradients already used, also when a later step (an accumulation flush after the loop) follows it: quiet.

    Why is this bad: the gradients just computed are cleared before the optimiser reads them.
    zero_grad() sets them to None by default (set_to_none=True since PyTorch 2.0), and SGD, Adam
    and AdamW skip a parameter without a gradient entirely: no update, no momentum, no weight
    decay. The loss stays flat, with no warning. With set_to_none=False the gradients are zeros
    instead; then only weight decay (and momentum left from earlier proper steps) moves the
    weights, so a "the weights changed" check passes while nothing is learnt.
    """

    code = "MLD011"
    name = "zero-grad-between-backward-and-step"
    category = "optimiser"
    severity = "error"
    message = "zero_grad() between backward() and step() clears the gradients before the step uses them"
    why = "The step finds every gradient None (zero_grad's default) and skips every parameter: not even weight decay moves."
    fix = "Order each step as zero_grad(), forward, loss.backward(), optimizer.step()."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    # a script's top-level step is read as a function's body (a notebook cell, a tutorial)
    node_types = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.AsyncFor, ast.While)
    requires_text = ('backward',)  # skip modules that cannot contain the pattern
    BAD = (
        "def step(model, opt, x, y, loss_fn):\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.zero_grad()\n"
        "    opt.step()\n"
    )
    GOOD = (
        "def step(model, opt, x, y, loss_fn):\n"
        "    opt.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        # no backward() inside: not a training step, unless a function runs Lightning's manual one
        if not trains(node, ctx) and not (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                                          and ctx.has_text("manual_backward")):
            return
        seen_backward = False
        pending_zero: ast.Call | None = None
        for call in calls_in_order(node.body):
            if is_any_backward(call):
                seen_backward, pending_zero = True, None
            elif is_zero_grad(call) and seen_backward:
                # a zero followed by `continue` (an OOM handler's) ends its iteration: no step of it follows
                pending_zero = None if leaves_before_later_code(call, node, ctx) else call
            elif optimizer_step(call, ctx):
                if pending_zero is None:
                    # the step used the gradients: a zero_grad() after it clears spent ones, whatever steps later
                    # (`if (i + 1) % k == 0: opt.step(); opt.zero_grad()`, then a flush step after the loop)
                    seen_backward = False
                elif not _another_optimizer(pending_zero, call, ctx):
                    yield Hit(pending_zero)
                    pending_zero, seen_backward = None, False
                # else `opt_a.zero_grad()` before `opt_b.step()`: b's gradients are not a's to clear


def _another_optimizer(zero: ast.Call, step: ast.Call, ctx: ModuleContext) -> bool:
    """The zeroed object is an optimizer other than the stepped one (speechbrain's diffusion recipe zeroes
    `self.optimizer` after its step, before `self.optimizer_done.step()`); a model's zero_grad() clears the
    parameters any optimizer steps, so it does not count."""
    zeroed, stepped = zero.func.value, step.func.value if isinstance(step.func, ast.Attribute) else None
    if stepped is None or ast.dump(zeroed) == ast.dump(stepped):
        return False
    built = ctx.constructed(zeroed) or ""
    return built.startswith("torch.optim.") or "optim" in (ast.unparse(zeroed).rsplit(".", 1)[-1]).lower()
