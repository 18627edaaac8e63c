import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule

NAMES = ("clip_grad_norm_", "clip_grad_norm")


class DiscardedClipGradNorm(Rule):
    """What it does: flags clip_grad_norm_(...) (torch.nn.utils, or the accelerator/Fabric/FSDP
    method of the same name) called as a bare statement, so the total norm it returns is dropped.

    Why is this bad: the return value is the gradient norm before clipping, the cheapest signal
    of whether clipping fires. A threshold below the typical norm clips every step, which acts
    as a hidden learning-rate cut (and spikes or NaNs go unnoticed) without anyone seeing it.
    """

    code = "MLD073"
    name = "discarded-clip-grad-norm"
    category = "optimiser"
    severity = "info"
    message = "clip_grad_norm_ result discarded: the pre-clip gradient norm is never logged"
    why = "Without the returned norm you cannot tell whether clipping fires on every step and silently shrinks updates."
    fix = "grad_norm = clip_grad_norm_(model.parameters(), max_norm); log grad_norm every step."
    evidence = "tuning-playbook"
    node_types = (ast.Expr,)
    requires_text = ('clip_grad_norm',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def step(model, opt, loss):\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    opt.step()\n"
    )
    GOOD = (
        "import torch\n"
        "def step(model, opt, loss, log):\n"
        "    loss.backward()\n"
        "    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    log({'grad_norm': grad_norm.item()})\n"
        "    opt.step()\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        call = node.value
        if not isinstance(call, ast.Call):
            return
        name = ctx.call_name(call)
        if name is not None:
            # imported (torch.nn.utils, nn.utils, from-imports); a local function of that name is unknown
            if name.rsplit(".", 1)[-1] in NAMES and "." in name:
                yield Hit(call)
        elif isinstance(call.func, ast.Attribute) and call.func.attr == "clip_grad_norm_":
            yield Hit(call)  # accelerator.clip_grad_norm_, FSDP model.clip_grad_norm_: both return the norm
