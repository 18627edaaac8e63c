import ast
from collections.abc import Iterable

from ..context import ModuleContext
from ..helpers.graph import in_no_grad, other_framework
from ..rule import Hit, Rule

INPLACE = {"add_", "sub_", "mul_", "div_", "copy_", "zero_", "fill_", "clamp_", "clamp_min_", "clamp_max_",
           "addcmul_", "addcdiv_", "pow_", "neg_", "normal_", "uniform_", "masked_fill_", "lerp_", "sqrt_"}
FACTORIES = {"torch." + f for f in ("randn", "rand", "zeros", "ones", "tensor", "empty", "full", "arange", "linspace",
                                    "randn_like", "rand_like", "zeros_like", "ones_like", "empty_like", "full_like")}


class InplaceOnLeafParameter(Rule):
    """What it does: flags in-place updates (`w -= lr * w.grad`, `w.add_(...)`, `w.zero_()`,
    `w[i] = ...`) of a tensor created with requires_grad=True, an nn.Parameter, or a loop variable
    over model.parameters(), when the update is not under torch.no_grad().

    Why is this bad: autograd refuses to modify a leaf that requires grad in place, and the usual
    "fix" (rebinding `w = w - lr * w.grad`) turns the weight into a non-leaf whose .grad is never
    filled again, so the manual update silently stops training. Updates belong under no_grad.
    """

    code = "MLD031"
    name = "inplace-on-leaf-parameter"
    category = "autograd"
    severity = "warning"  # loud as written (autograd raises); silent only once "fixed" by rebinding
    message = "in-place update of '{name}', a leaf tensor that requires grad, outside torch.no_grad()"
    why = "Autograd forbids in-place edits of leaves that require grad; the workarounds silently detach the weight."
    fix = "Do manual updates inside `with torch.no_grad():` (or use an optimizer), then zero the gradient."
    evidence = "pytorch-docs"
    node_types = (ast.AugAssign, ast.Call, ast.Assign)
    call_names = frozenset(INPLACE)  # the calls it checks: in-place methods
    requires_text = ('requires_grad', 'Parameter', 'parameters')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "for x, y in [(torch.ones(3), 1.0)]:\n"
        "    loss = ((w * x).sum() - y) ** 2\n"
        "    loss.backward()\n"
        "    w -= 0.1 * w.grad\n"
    )
    GOOD = (
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "for x, y in [(torch.ones(3), 1.0)]:\n"
        "    loss = ((w * x).sum() - y) ** 2\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n"
        "        w -= 0.1 * w.grad\n"
        "    w.grad = None\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterable[Hit]:  # a tuple: asked for every assignment
        if isinstance(node, ast.AugAssign):  # w -= ..., w[i] += ...
            target = node.target.value if isinstance(node.target, ast.Subscript) else node.target
        elif isinstance(node, ast.Assign):  # w[i] = ...
            subs = [t for t in node.targets if isinstance(t, ast.Subscript)]
            target = subs[0].value if subs else None
        else:
            target = node.func.value if ctx.method_name(node) in INPLACE else None
        # only the tensor itself: w.data and w.grad updates are not in-place edits of the leaf
        if not isinstance(target, ast.Name | ast.Attribute) or isinstance(target, ast.Attribute) and not (
                isinstance(target.value, ast.Name) and target.value.id == "self"):
            return ()
        if _leaf(target, node, ctx) and not in_no_grad(node, ctx) and not other_framework(ctx):
            return (Hit(node, self.message.format(name=ast.unparse(target))),)
        return ()


def _leaf(target: ast.Name | ast.Attribute, at: ast.AST, ctx: ModuleContext) -> bool:
    if isinstance(target, ast.Name) and _parameter_loop_variable(target, at, ctx):
        return True
    values = ctx.values_of(target, at=at)
    if isinstance(target, ast.Name):
        values = [v for v in values if v.lineno < at.lineno][:1]  # the binding in force
    return bool(values) and all(_creates_leaf(v, ctx) for v in values)


def _creates_leaf(value: ast.expr, ctx: ModuleContext) -> bool:
    if not isinstance(value, ast.Call):
        return False
    flag = next((k.value for k in value.keywords if k.arg == "requires_grad"), None)
    name = ctx.call_name(value)
    if name in {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}:
        return flag is None or isinstance(flag, ast.Constant) and flag.value is True
    if name in FACTORIES:
        return isinstance(flag, ast.Constant) and flag.value is True
    if name is None and ctx.method_name(value) == "requires_grad_":
        return not value.args or isinstance(value.args[0], ast.Constant) and value.args[0].value is True
    return False


def _parameter_loop_variable(name: ast.Name, at: ast.AST, ctx: ModuleContext) -> bool:
    """`for p in model.parameters()` or `for n, p in model.named_parameters()` around `name`, not rebound."""
    for anc in ctx.ancestors(name):
        if isinstance(anc, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
        if not isinstance(anc, ast.For) or not isinstance(anc.iter, ast.Call):
            continue
        method = ctx.method_name(anc.iter)
        if method == "named_parameters" and isinstance(anc.target, ast.Tuple) and len(anc.target.elts) == 2:
            variable = anc.target.elts[1]
        elif method == "parameters":
            variable = anc.target
        else:
            continue
        rebound = any(anc.lineno < v.lineno < at.lineno for v in ctx.values_of(name, at=at))
        return isinstance(variable, ast.Name) and variable.id == name.id and not rebound
    return False
