"""Logs that no loss and no gradient ever reads (MLD061): a parameter initialised from a log once, and a
ratio of hand-written positive constants.

`b.data[:, 5:] += torch.log(cf / cf.sum())` (YOLO's class-frequency bias prior, `b = conv.bias.view(...)`)
writes the log into a parameter's storage at construction time: no gradient flows through it, and the counts
it is given are smoothed by their callers. `torch.tensor([0.5, 0.3]) / total` has no zero entry to log.
"""

import ast

from ..context import ModuleContext
from .graph import latest_value

NEW_TENSORS = {"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "numpy.array"}
PARAMETERS = {"bias", "weight"}
SAME_STORAGE = {"view", "reshape", "view_as", "flatten", "data", "detach"}


def writes_parameter(log: ast.Call, ctx: ModuleContext) -> bool:
    """The log's value is stored into a parameter's storage: a target through `.data` (`b.data[...] += ...`,
    `m.bias.data = ...`), a parameter attribute, or a name that views one (`b = conv.bias.view(3, -1)`)."""
    stmt = next((a for a in ctx.ancestors(log) if isinstance(a, ast.stmt)), None)
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        # `prior = torch.log(...)` rebinds a name; only an item or attribute store writes into a tensor
        stored = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        targets = [t for t in stored if not isinstance(t, ast.Name)]
    elif isinstance(stmt, ast.AugAssign):
        targets = [stmt.target]  # `b += ...` adds in place into the tensor `b` holds
    else:
        return False
    return any(_parameter_storage(t, ctx) for t in targets)


def _parameter_storage(node: ast.expr, ctx: ModuleContext, depth: int = 2) -> bool:
    while isinstance(node, ast.Subscript | ast.Attribute | ast.Call):
        if isinstance(node, ast.Attribute) and (node.attr == "data" or node.attr in PARAMETERS):
            return True
        if isinstance(node, ast.Call):
            if ctx.method_name(node) not in SAME_STORAGE:
                return False
            node = node.func.value
        else:
            node = node.value
    if not (isinstance(node, ast.Name) and depth):
        return False
    value = latest_value(node, ctx)
    return isinstance(value, ast.Subscript | ast.Attribute | ast.Call) and _parameter_storage(value, ctx, depth - 1)


def positive_literal(expr: ast.expr, ctx: ModuleContext) -> bool:
    """`torch.tensor([0.5, 0.3])` (through a name): a literal tensor of positive numbers has no zero entry."""
    if isinstance(expr, ast.Name):
        expr = latest_value(expr, ctx)
    if not (isinstance(expr, ast.Call) and ctx.call_name(expr) in NEW_TENSORS and expr.args):
        return False
    numbers = [n for n in ast.walk(expr.args[0]) if isinstance(n, ast.Constant)]
    containers = all(isinstance(n, ast.List | ast.Tuple | ast.Constant | ast.expr_context)
                     for n in ast.walk(expr.args[0]))
    return containers and bool(numbers) and all(
        isinstance(n.value, int | float) and not isinstance(n.value, bool) and n.value > 0 for n in numbers)
