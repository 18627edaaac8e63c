import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.clip_order import CLIPS, is_torch_clip, scaled_backward_before
from ..rule import Hit, Rule


class ClipOnScaledGradients(Rule):
    """What it does: flags torch's gradient clip (`clip_grad_norm_`, `clip_grad_value_`) that runs after
    `scaler.scale(loss).backward()` in the same iteration with no `scaler.unscale_(optimizer)` between them.
    A scaler built with `enabled=False`, an `unscale_` before the clip, a clip in the other branch of an
    `if` than the scaled backward, and an accelerator's or framework's own clip method (they unscale first)
    are left alone.

    Why is this bad: a GradScaler multiplies the loss, and so every gradient, by its scale (65536 to start).
    The clip then measures the scaled norm against the max_norm you chose, so it fires on every step and
    never at your threshold: each step's gradient is cut to max_norm / scale once `scaler.step` unscales
    it. With SGD the updates shrink by the scale factor and training all but stops; Adam's normalisation
    hides much of that, but the clip no longer limits anything you meant it to.
    """

    code = "MLD075"
    name = "clip-on-scaled-gradients"
    category = "optimiser"
    severity = "error"  # silent: every step is clipped by the scale factor, nothing fails
    message = ("gradients are clipped while still scaled by the GradScaler (backward on line {line}): "
               "unscale them first")
    why = "The clip sees gradients times the loss scale (65536 at first), so it fires every step, not at max_norm."
    fix = "Call scaler.unscale_(optimizer) after the scaled backward and before clipping; scaler.step then skips it."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = CLIPS
    requires_text = ("clip_grad",)
    BAD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast('cuda', dtype=torch.float16):\n"
        "            loss = loss_fn(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
    )
    GOOD = BAD.replace("        torch.nn.utils.clip_grad_norm_",
                       "        scaler.unscale_(opt)\n        torch.nn.utils.clip_grad_norm_")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not is_torch_clip(node, ctx):
            return
        backward = scaled_backward_before(node, ctx)
        if backward is not None:
            yield Hit(node, self.message.format(line=backward.lineno))
