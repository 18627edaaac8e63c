import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule


class TorchLoadWithoutWeightsOnly(Rule):
    """What it does: flags torch.load(...) calls that do not pass weights_only.

    Why is this bad: before PyTorch 2.6 torch.load unpickles arbitrary objects by default, so
    loading an untrusted checkpoint can run code; being explicit is safe on every version.
    """

    code = "MLD070"
    name = "torch-load-without-weights-only"
    category = "hygiene"
    severity = "info"  # security hygiene: torch >= 2.6 loads weights only by default; results unaffected
    message = "torch.load without weights_only=True can execute code from the checkpoint"
    why = "Older PyTorch defaults unpickle arbitrary objects; an untrusted checkpoint can run code."
    fix = "torch.load(path, weights_only=True); load full objects only from files you trust."
    evidence = "pytorch-docs"
    node_types = (ast.Call,)
    call_names = frozenset({"load"})  # torch.load
    requires_text = ('load',)  # skip modules that cannot contain the pattern
    BAD = "import torch\nstate = torch.load('model.pt')\n"
    GOOD = "import torch\nstate = torch.load('model.pt', weights_only=True)\n"

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.call_name(node) != "torch.load":
            return
        if any(k.arg == "weights_only" for k in node.keywords) or any(k.arg is None for k in node.keywords):
            return
        yield Hit(node)
