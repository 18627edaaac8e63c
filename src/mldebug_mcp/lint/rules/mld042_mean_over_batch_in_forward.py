import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.tensors_flow import enclosing_forward, is_loss_class
from ..rule import Hit, Rule


class MeanOverBatchInForward(Rule):
    """What it does: flags, in a model's `forward`, a layer output centred by its own mean taken with no
    dim: `adv = self.fc_adv(h)` then `val + adv - adv.mean()` (the dueling head). The mean runs over
    every axis, the batch included. A mean with a dim (`adv.mean(dim=1, keepdim=True)`), a mean of the
    forward's inputs, and a loss class's forward (a batch statistic on purpose) are quiet.

    Why is this bad: each sample's output now depends on the other samples in its batch, so the same
    input gives other values in training, in evaluation and at batch size one. For the dueling head the
    advantages are centred across samples and actions instead of over each sample's actions, and the
    Q-values lose the identity the architecture is built on. Nothing fails; learning is just worse.
    """

    code = "MLD042"
    name = "mean-over-batch-in-forward"
    category = "shapes"
    severity = "error"  # silent: outputs depend on the rest of the batch
    message = ("{tensor}.mean() has no dim: it averages over the batch as well, so each sample's output depends on the "
               "others; give the axes to average over (e.g. {tensor}.mean(dim=1, keepdim=True))")
    why = "A mean with no dim mixes every sample of the batch into each output, so an input's output depends on its batch."
    fix = "Average over the per-sample axes only: x.mean(dim=1, keepdim=True)."
    evidence = "karpathy-recipe/backprop-to-chart-dependencies"
    node_types = (ast.Call,)
    call_names = frozenset({"mean"})
    requires_text = ("forward",)
    BAD = (
        "import torch.nn as nn\n"
        "class Dueling(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.adv, self.val = nn.Linear(8, n), nn.Linear(8, 1)\n"
        "    def forward(self, h):\n"
        "        adv = self.adv(h)\n"
        "        return self.val(h) + adv - adv.mean()\n"
    )
    GOOD = BAD.replace("adv.mean()", "adv.mean(dim=1, keepdim=True)")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if node.args or node.keywords or not isinstance(node.func, ast.Attribute) \
                or not isinstance(node.func.value, ast.Name):
            return
        name = node.func.value.id
        parent = ctx.parent(node)
        if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Sub) and parent.right is node):
            return
        found = enclosing_forward(node, ctx)
        if found is None or is_loss_class(found[0]):
            return
        if not _operand(name, parent.left) or not _layer_output(name, found[1], node, ctx):
            return
        yield Hit(node, self.message.format(tensor=name))


def _operand(name: str, expr: ast.expr) -> bool:
    """`name` is a term of the sum it is centred in (`val + adv - adv.mean()`), not inside another call."""
    while isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add | ast.Sub):
        if isinstance(expr.right, ast.Name) and expr.right.id == name:
            return True
        expr = expr.left
    return isinstance(expr, ast.Name) and expr.id == name


def _layer_output(name: str, forward: ast.FunctionDef, use: ast.AST, ctx: ModuleContext) -> bool:
    """The latest binding of `name` before `use` in forward is a call of one of the model's layers
    (`self.fc_adv(h)`, possibly reshaped after it)."""
    value = None
    for node in ast.walk(forward):
        if isinstance(node, ast.Assign) and node.lineno < use.lineno and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if value is None or node.lineno > value.lineno:
                value = node
    if value is None:
        return False
    call = value.value
    while isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and not _on_self(call.func.value):
        call = call.func.value  # self.fc(h).view(n, -1): back to the layer call
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and _on_self(call.func.value)


def _on_self(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name) and expr.id == "self"
