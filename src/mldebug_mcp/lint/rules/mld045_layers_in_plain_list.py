import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.plain_module_holders import plain_holder_of_dropout, plain_holder_of_layers
from ..rule import Hit, Rule


class LayersInPlainList(Rule):
    """What it does: flags layers with weights kept on an `nn.Module` in a plain Python list, tuple or dict
    (`self.layers = [nn.Linear(d, d) for _ in range(n)]`, `self.heads = {k: nn.Linear(d, 1) for k in tasks}`, or
    `self.conv = []` filled by `self.conv.append(nn.Conv2d(...))` in a loop) when the class registers them nowhere
    (no `nn.ModuleList`/`ModuleDict`/`Sequential(*...)` built from that attribute, `add_module`, `register_module` or
    `setattr(self, ...)`). A plain holder of dropout modules is a warning (eval() never reaches them); holders of
    other layers without weights (pooling, activations, `nn.Identity`) are left alone.

    Why is this bad: a module registers only attributes that are themselves modules, parameters or buffers. The
    layers in a plain container still run in forward, and their gradients are computed, but they are missing from
    `model.parameters()` (the optimiser never updates them), from `state_dict()` (checkpoints do not save them),
    from `.to(device)` and from `train()`/`eval()`. The model trains with those layers frozen at their random start.
    """

    code = "MLD045"
    name = "layers-in-plain-list"
    category = "optimiser"
    severity = "error"  # silent: the layers keep their initial weights
    message = ("self.{attribute} keeps layers with weights in a plain {kind}: they are not registered, so the "
               "optimiser, state_dict, .to() and eval() never see them")
    why = "Only module attributes register; layers in a plain list are not in model.parameters() and never train."
    fix = "Hold them in nn.ModuleList([...]) (nn.ModuleDict({...}) for a dict), or nn.Sequential(*layers)."
    evidence = "pytorch-docs"
    node_types = (ast.Assign,)
    requires_text = ("self.",)
    BAD = (
        "import torch.nn as nn\n"
        "class MLP(nn.Module):\n"
        "    def __init__(self, d, depth):\n"
        "        super().__init__()\n"
        "        self.layers = [nn.Linear(d, d) for _ in range(depth)]\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x).relu()\n"
        "        return x\n"
    )
    DROPOUT = ("self.{attribute} keeps dropout modules in a plain container: they are not registered, so eval() never "
               "reaches them and they keep dropping at evaluation")
    GOOD = BAD.replace("[nn.Linear(d, d) for _ in range(depth)]", "nn.ModuleList([nn.Linear(d, d) for _ in range(depth)])")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not isinstance(node.value, ast.List | ast.Tuple | ast.ListComp | ast.Dict | ast.DictComp):
            return
        found = plain_holder_of_layers(node, ctx)
        if found is not None:
            kind = "dict" if isinstance(node.value, ast.Dict | ast.DictComp) else (
                "tuple" if isinstance(node.value, ast.Tuple) else "list")
            yield Hit(node, self.message.format(attribute=found[0], kind=kind))
            return
        found = plain_holder_of_dropout(node, ctx)
        if found is not None:
            yield Hit(node, self.DROPOUT.format(attribute=found[0]), severity="warning")
