import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule

FUNCTIONAL_DROPOUT = {"torch.nn.functional.dropout", "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
                      "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
                      "torch.nn.functional.feature_alpha_dropout"}
ATTENTION = {"torch.nn.functional.scaled_dot_product_attention"}
DROPOUT_MODULES = {"torch.nn.Dropout", "torch.nn.Dropout1d", "torch.nn.Dropout2d", "torch.nn.Dropout3d",
                   "torch.nn.AlphaDropout", "torch.nn.FeatureAlphaDropout"}


class DropoutIgnoresTrainingMode(Rule):
    """What it does: inside a module's forward, flags dropout that does not follow the module's train/eval
    mode: F.dropout(x, p) without `training=self.training` (its default is training=True), an attention
    call given `dropout_p=` a fixed rate instead of one that is 0 outside training, and an nn.Dropout
    built inside forward and called at once (a fresh module is always in training mode).

    Why is this bad: model.eval() switches only the submodules it owns. These calls keep dropping units
    at evaluation and inference, so validation scores are noisy and pessimistic, and predictions vary
    from one call to the next, without any error.
    """

    code = "MLD023"
    name = "dropout-ignores-training-mode"
    category = "modes"
    severity = "error"
    message = "dropout here does not follow model.eval(): it keeps dropping units at evaluation and inference"
    why = "model.eval() only switches registered submodules; functional or freshly built dropout stays in training mode."
    fix = ("Pass training=self.training to F.dropout, dropout_p=self.p if self.training else 0.0 to attention, "
           "or register nn.Dropout in __init__ and call self.dropout(x).")
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.Call,)
    requires_text = ("dropout", "Dropout")
    BAD = (
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return F.dropout(self.fc(x), p=0.1)\n"
    )
    GOOD = (
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return F.dropout(self.fc(x), p=0.1, training=self.training)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not _in_forward(node, ctx) or _only_when_training(node, ctx):
            return
        name = ctx.call_name(node) or ""
        if name in FUNCTIONAL_DROPOUT and not _keyword(node, "training") and len(node.args) < 3:
            yield Hit(node)
        elif name in ATTENTION:
            rate = _keyword(node, "dropout_p") or (node.args[4] if len(node.args) > 4 else None)
            if rate is not None and not _zero_outside_training(rate, ctx):
                yield Hit(rate, "attention dropout_p does not depend on self.training: attention weights are "
                                "dropped at evaluation and inference too")
        elif isinstance(node.func, ast.Call) and ctx.call_name(node.func) in DROPOUT_MODULES:
            yield Hit(node, "nn.Dropout built inside forward is always in training mode: model.eval() never reaches it")


def _in_forward(node: ast.AST, ctx: ModuleContext) -> bool:
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return function is not None and function.name == "forward" and ctx.enclosing_class(function) is not None


def _only_when_training(node: ast.AST, ctx: ModuleContext) -> bool:
    """Inside the body of `if self.training ...:` (or `if not self.training: ... else:` branch): only reached
    in training mode."""
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.If) and _reads_training(ancestor.test):
            negated = isinstance(ancestor.test, ast.UnaryOp) and isinstance(ancestor.test.op, ast.Not)
            if (child in ancestor.body) != negated:
                return True
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            return _after_eval_exit(ancestor, child)
        child = ancestor
    return False


def _after_eval_exit(function: ast.AST, statement: ast.AST) -> bool:
    """`if not self.training: return ...` earlier in the function: what follows runs only in training."""
    for earlier in function.body:
        if earlier is statement:
            return False
        if (isinstance(earlier, ast.If) and isinstance(earlier.test, ast.UnaryOp)
                and isinstance(earlier.test.op, ast.Not) and _reads_training(earlier.test)
                and earlier.body and isinstance(earlier.body[-1], ast.Return | ast.Raise)):
            return True
    return False


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _zero_outside_training(rate: ast.expr, ctx: ModuleContext) -> bool:
    """A literal 0, or an expression that reads `training` (`p if self.training else 0.0`, a variable
    assigned from one); a name or attribute we cannot see through is given the benefit of the doubt
    only when it is assigned from such an expression in the same function."""
    if isinstance(rate, ast.Constant):
        return not rate.value
    if _reads_training(rate):
        return True
    if isinstance(rate, ast.Name):
        values = ctx.values_of(rate, rate)
        return bool(values) and all(_zero_outside_training(v, ctx) for v in values)
    return False


def _reads_training(expr: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "training" or isinstance(n, ast.Name) and n.id == "training"
               for n in ast.walk(expr))
