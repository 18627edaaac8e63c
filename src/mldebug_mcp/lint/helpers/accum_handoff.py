"""A training step that keeps its loss tensor on self for a logging method it calls (MLD032): `self.batch_loss =
loss` after `loss.backward()`, then `self.end_of_batch_log()` appends the kept value to statistics that live on
the object (`stat[name]["values"] += [value]` with `stat = self.statistics[category]`): every step's graph stays
reachable from the statistics. Flagged where the tensor is kept, where `.detach()` or `.item()` belongs."""

import ast

from ..context import ModuleContext
from .accum_losses import DETACHING, detached
from .accum_stores import accumulation
from .graph import latest_value, module_index

# what turns a tensor into a number or a graph-free copy when the logging method reads it
READ_DETACHED = DETACHING | {"cpu", "data"}


def kept_for_a_log(node: ast.AST, ctx: ModuleContext) -> bool:
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Name)):
        return False
    target = node.targets[0]
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
        return False
    method = ctx.enclosing(node, (ast.FunctionDef,))
    cls = ctx.parent(method) if method is not None else None
    if not isinstance(cls, ast.ClassDef) or not _backwarded(node.value.id, method, ctx):
        return False
    kept = ast.unparse(target)
    called = {c.func.attr for c in ast.walk(method) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
              and isinstance(c.func.value, ast.Name) and c.func.value.id == "self" and c.lineno > node.lineno}
    for other in cls.body:
        if isinstance(other, ast.FunctionDef) and other.name in called and _reads_raw(other, kept, ctx) \
                and _keeps_tensors(other, ctx):
            return True
    return False


def _backwarded(name: str, method: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """`loss.backward()` (or `scaler.scale(loss).backward()`) in the method: the name holds a graph."""
    calls = module_index(ctx)["backward"].get(method, ())
    return any(isinstance(n, ast.Name) and n.id == name for c in calls for n in ast.walk(c.func.value))


def _reads_raw(method: ast.FunctionDef, kept: str, ctx: ModuleContext) -> bool:
    """The method reads `self.batch_loss` other than through .item() / .detach()."""
    for node in ast.walk(method):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and ast.unparse(node) == kept:
            parent = ctx.parent(node)
            if not (isinstance(parent, ast.Attribute) and parent.attr in READ_DETACHED):
                return True
    return False


def _keeps_tensors(method: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """An accumulation into statistics that live on the object, of a value nothing turned into a number."""
    for node in ast.walk(method):
        if not isinstance(node, ast.AugAssign | ast.Assign | ast.Call):
            continue
        store, added = accumulation(node, ctx)
        if store is None or not _on_the_object(store, method, ctx):
            continue
        for operand in (added.elts if isinstance(added, ast.List | ast.Tuple) else [added]):
            value = latest_value(operand, ctx) if isinstance(operand, ast.Name) else operand
            if value is None or not detached(value, ctx) and not isinstance(value, ast.Constant):
                return True  # a loop variable over what the method read, or a value kept as it is
    return False


def _on_the_object(store: ast.expr, method: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """`self.stats[k]`, or `stat[k]` where `stat = self.statistics[category]` or `self.statistics[c] = stat`."""
    root = store
    while isinstance(root, ast.Attribute | ast.Subscript):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    if root.id == "self":
        return True
    for node in ast.walk(method):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == root.id for t in node.targets) \
                and _rooted_at_self(node.value):
            return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == root.id \
                and any(_rooted_at_self(t) for t in node.targets):
            return True
    return False


def _rooted_at_self(expr: ast.expr) -> bool:
    """`self.statistics[c]`, `self.statistics.setdefault(c, {})`: an entry of the object's state."""
    while isinstance(expr, ast.Attribute | ast.Subscript | ast.Call):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
        if isinstance(expr, ast.Name) and expr.id == "self":
            return True
    return False
