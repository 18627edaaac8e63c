"""Where a running store adds a value each iteration (MLD032): `total += x`, `total = total + x`, `totals[k] += x`,
`log[step] = x` (a key that changes each iteration), `ema = a * x + (1 - a) * ema`, `losses[i], costs[i] = step(...)`, `xs.append(x)`,
`total.add_(x)`, `running = {k: running.get(k, 0) + v ...}`, `metrics.update(loss=metrics["loss"] + x)`, and
`meter.update(x)` on a running-average object that keeps what it is given. Gives (the store, the value added)."""

import ast

from ..context import ModuleContext
from .accum_meters import stored_arguments
from .loops import LOOPS

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def accumulation(node: ast.AST, ctx: ModuleContext) -> tuple[ast.expr | None, ast.expr | None]:
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        return node.target, node.value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp) \
            and isinstance(node.value.op, ast.Add):
        target, left, right = node.targets[0], node.value.left, node.value.right
        if type(target) is ast.Name:  # `x = x + y`: only a name unparses to the target's name (no unparse needed)
            if type(left) is ast.Name and left.id == target.id:
                return target, right
            if type(right) is ast.Name and right.id == target.id:
                return target, left
        elif type(left) is type(target) or type(right) is type(target):
            # unparsed texts parse back to the same tree, so equal texts are nodes of the same type
            key = ast.unparse(target)
            if type(left) is type(target) and ast.unparse(left) == key:
                return target, right
            if type(right) is type(target) and ast.unparse(right) == key:
                return target, left
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp | ast.IfExp):
        # `ema = a * x + (1 - a) * ema`, also as the else of `x if ema is None else ...` (the first value)
        sides = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
        # a running mean, `avg = (avg * n + x) / (n + 1)`: the sum inside the division
        sides = [s.left if isinstance(s, ast.BinOp) and isinstance(s.op, ast.Div) else s for s in sides]
        for side in sides:
            added = _averaged_into(side, node.targets[0]) if isinstance(side, ast.BinOp) \
                and isinstance(side.op, ast.Add) else None
            if added is not None:
                return node.targets[0], added
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.DictComp):
        # running = {k: running.get(k, 0) + v for k, v in losses.items()}: a dict of running sums, rebuilt
        added = _added_to(node.value.value, ast.unparse(node.targets[0]))
        if added is not None:
            return node.targets[0], added
    if isinstance(node, ast.Call) and ctx.method_name(node) == "update" and ctx.call_name(node) is None:
        # metrics.update(loss=metrics["loss"] + loss), metrics.update({"loss": metrics.get("loss", 0) + loss})
        key = ast.unparse(node.func.value)
        values = [k.value for k in node.keywords if k.arg] + [
            v for a in node.args if isinstance(a, ast.Dict) for v in a.values]
        added = next((a for a in (_added_to(v, key) for v in values) if a is not None), None)
        if added is not None:
            return node.func.value, added
    if isinstance(node, ast.Call) and ctx.method_name(node) in ("append", "add_") and len(node.args) == 1 \
            and ctx.call_name(node) is None:
        return node.func.value, node.args[0]  # `stats.device_stat("loss").add_(loss)`: a running sum in place
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple):
        # `losses[it], costs[it] = step(...)`: one entry per iteration of a preallocated list
        elements = node.targets[0].elts
        for index, element in enumerate(elements):
            if isinstance(element, ast.Subscript) and key_varies(element, ctx):
                value = node.value
                if isinstance(value, ast.Tuple) and len(value.elts) == len(elements):
                    value = value.elts[index]
                return element, value
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
            and key_varies(node.targets[0], ctx):
        return node.targets[0], node.value  # log[step] = loss: one entry per iteration
    if isinstance(node, ast.Call):
        kept = stored_arguments(node, ctx)  # meter.update(loss): a running-average object keeps the value
        if kept:
            return node.func.value, kept[0]
    return None, None


def _averaged_into(value: ast.BinOp, target: ast.expr) -> ast.expr | None:
    """`y` in `ema = a * y + (1 - a) * ema` (either order, the factor on either side): a moving average keeps
    every value it takes in, as a sum does."""
    if not isinstance(target, ast.Name | ast.Attribute | ast.Subscript):
        return None
    key = ast.unparse(target)
    for own, other in ((value.left, value.right), (value.right, value.left)):
        if isinstance(own, ast.BinOp) and isinstance(own.op, ast.Mult) and key in (
                ast.unparse(own.left), ast.unparse(own.right)) and key not in ast.unparse(other):
            return other
    return None


def _added_to(expr: ast.expr, key: str) -> ast.expr | None:
    """`v` in `running.get(k, 0) + v` / `running[k] + v` when `running` is `key`: what joins a running sum."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add)):
        return None
    for own, other in ((expr.left, expr.right), (expr.right, expr.left)):
        base = own.func.value if isinstance(own, ast.Call) and isinstance(own.func, ast.Attribute) \
            and own.func.attr == "get" else own.value if isinstance(own, ast.Subscript) else None
        if base is not None and ast.unparse(base) == key:
            return other
    return None


def key_varies(target: ast.Subscript, ctx: ModuleContext) -> bool:
    """`log[step]` where `step` is a loop variable or a counter advanced in a loop around the store: each
    iteration adds an entry (a constant key, `log["last"] = loss`, overwrites one)."""
    keys = {n.id for n in ast.walk(target.slice) if isinstance(n, ast.Name)}
    if not keys:
        return False
    for anc in ctx.ancestors(target):
        if isinstance(anc, FUNCTIONS):
            return False
        if isinstance(anc, LOOPS):
            targets = {n.id for n in ast.walk(anc.target) if isinstance(n, ast.Name)} if isinstance(
                anc, ast.For | ast.AsyncFor) else set()
            if keys & targets or keys & _advanced(anc, ctx):
                return True
    return False


def _advanced(loop: ast.AST, ctx: ModuleContext) -> set[str]:
    """The names a loop advances (`step += 1`), once per loop: every store in it asks."""
    return ctx.memo(("mld032", "advanced", id(loop)), lambda: {  # its `+=` by line from the module's list: no walk
        n.target.id for n in ctx.within(ast.AugAssign, loop) if isinstance(n.target, ast.Name)})
