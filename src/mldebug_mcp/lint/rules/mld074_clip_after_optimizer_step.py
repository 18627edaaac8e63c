import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.clip_order import clip_after_step, is_clip
from ..rule import Hit, Rule


class ClipAfterOptimizerStep(Rule):
    """What it does: flags a gradient clip (`clip_grad_norm_`, `clip_grad_value_`, torch's or an
    accelerator's) that runs after the optimiser's step with no backward and no other step after it
    in the same iteration: `loss.backward(); opt.step(); clip_grad_norm_(model.parameters(), 1.0)`.
    A clip between two optimisers' steps, or before a later backward and step, is left alone.

    Why is this bad: the step has already applied the unclipped gradients, and the next iteration
    clears or overwrites the clipped ones before they are used. The clipping never touches an
    update, so the exploding gradients it was added for go through unchanged.
    """

    code = "MLD074"
    name = "clip-after-optimizer-step"
    category = "optimiser"
    severity = "error"  # silent: training runs unclipped while the code says it clips
    message = "gradients are clipped after {step}: the update already used the unclipped gradients"
    why = "The optimizer step reads .grad before this clip runs, so the clip never changes an update."
    fix = "Clip between backward() and optimizer.step() (after scaler.unscale_(optimizer) with AMP)."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset({"clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grad_value"})
    requires_text = ("clip_grad",)
    BAD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss_fn(model(x), y).backward()\n"
        "        opt.step()\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    )
    GOOD = BAD.replace("        opt.step()\n        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
                       "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        opt.step()\n")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not is_clip(node, ctx):
            return
        step = clip_after_step(node, ctx)
        if step is not None:
            yield Hit(node, self.message.format(step=f"{ast.unparse(step.func)}() (line {step.lineno})"))
