import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..rule import Hit, Rule

TYPOS = {"require_grad", "requires_grads", "require_grads"}
METHOD_TYPOS = {t + "_" for t in TYPOS}
# tensor methods that build a new tensor and take requires_grad=
NEW_METHODS = {"new_tensor", "new_zeros", "new_ones", "new_empty", "new_full"}
# receivers that are settings objects, not tensors: `args.require_grad = True` is a legitimate option name
SETTINGS = ("self", "args", "cfg", "conf", "config", "hparams", "opt", "settings", "flags")


class RequiresGradTypo(Rule):
    """What it does: flags misspellings of requires_grad: attribute assignments such as
    `p.require_grad = False`, keywords such as `torch.zeros(3, require_grad=True)`, calls such as
    `w.require_grad_()`, and `setattr(p, "require_grad", ...)`.

    Why is this bad: assigning a misspelt attribute just creates a new Python attribute, so the
    layer you meant to freeze keeps training (or the tensor you meant to train never tracks
    gradients) and nothing reports it. The keyword and method forms fail only when reached.
    """

    code = "MLD033"
    name = "requires-grad-typo"
    category = "autograd"
    severity = "error"
    message = "'{typo}' is a typo for requires_grad: gradient tracking is not changed"
    why = "A misspelt attribute is silently created on the tensor, so nothing is frozen or unfrozen."
    fix = "Spell it requires_grad (or call p.requires_grad_(False)); count trainable parameters to check."
    evidence = "slavv"
    node_types = (ast.Assign, ast.Call)
    requires_text = ('require_grad', 'requires_grads')  # skip modules that cannot contain the pattern
    BAD = (
        "import torchvision\n"
        "model = torchvision.models.resnet18(weights='DEFAULT')\n"
        "for p in model.parameters():\n"
        "    p.require_grad = False\n"
    )
    GOOD = (
        "import torchvision\n"
        "model = torchvision.models.resnet18(weights='DEFAULT')\n"
        "for p in model.parameters():\n"
        "    p.requires_grad = False\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for t in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                    if isinstance(t, ast.Attribute) and t.attr in TYPOS and not _settings(t.value):
                        yield Hit(t, self.message.format(typo=t.attr))
            return
        method = ctx.method_name(node)
        name = ctx.call_name(node) or ""
        if method in METHOD_TYPOS and not name.startswith("torch."):
            yield Hit(node, self.message.format(typo=method))
        # private torch APIs such as Tensor._make_subclass really spell it require_grad
        elif name.startswith("torch.") and not name.rsplit(".", 1)[-1].startswith("_") or method in NEW_METHODS:
            for keyword in node.keywords:
                if keyword.arg in TYPOS:
                    yield Hit(keyword, self.message.format(typo=keyword.arg))
        elif isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) == 3:
            attr = node.args[1]
            if isinstance(attr, ast.Constant) and attr.value in TYPOS:
                yield Hit(node, self.message.format(typo=attr.value))


def _settings(receiver: ast.expr) -> bool:
    name = receiver.id if isinstance(receiver, ast.Name) else ""
    return name == "self" or any(name.lower().startswith(s) or name.lower().endswith(s) for s in SETTINGS[1:])
