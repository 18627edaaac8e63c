"""A micro-batch loss "scaled" by a divisor the code itself sets to one (MLD014): a trainer loops over the
micro-batches of one step, a method it calls per micro-batch back-propagates `loss / cfg.micro_batch_size`,
and the setup forces `cfg.micro_batch_size = 1` (each micro-batch holds one sample). The division then
scales nothing and the step gets the sum of the k micro-batch losses; the divisor meant is the number of
micro-batches. Only a divisor whose every assignment in the file is the literal 1 counts."""

import ast

from ..context import ModuleContext
from .loops import calls_in_order, is_backward
from .optim_steps import FUNCTIONS
from .optim_values import optimizer_step


def unit_divided_micro_loss(func: ast.AST, ctx: ModuleContext) -> ast.BinOp | None:
    """The division by a forced-one divisor in the per-micro-batch method `func`'s loop calls, when `func`
    loops over micro-batches (no step inside) and steps the optimiser after the loop."""
    if not ctx.has_text("micro") or not ctx.has_text("backward"):
        return None
    cls = ctx.parent(func)
    if not isinstance(cls, ast.ClassDef):
        return None
    methods = {m.name: m for m in cls.body if isinstance(m, FUNCTIONS)}
    # any loop of the step method (`for i, mb in enumerate(batches)`, whatever it is called) that backwards
    # through the class's methods, never steps, and is followed by a step is the micro-batch loop
    for loop in (n for n in ast.walk(func) if isinstance(n, ast.For)):
        inside = calls_in_order(loop.body)
        if any(optimizer_step(c, ctx) for c in inside) or not any(
                optimizer_step(c, ctx) and c.lineno > loop.end_lineno for c in calls_in_order(func.body)):
            continue
        chain = _self_methods(inside, methods, depth=2)
        if not any(is_backward(c) for m in chain for c in ast.walk(m) if isinstance(c, ast.Call)):
            continue
        ones = _forced_ones(ctx)
        for method in chain:
            for node in ast.walk(method):
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) \
                        and isinstance(node.right, ast.Attribute) and node.right.attr in ones:
                    return node
    return None


def _self_methods(calls: list[ast.Call], methods: dict, depth: int) -> list[ast.AST]:
    """The methods of the class `self.m(...)` calls reach, `depth` calls deep."""
    found, todo = [], calls
    for _ in range(depth):
        called = [methods[c.func.attr] for c in todo if isinstance(c.func, ast.Attribute)
                  and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"
                  and c.func.attr in methods and methods[c.func.attr] not in found]
        found += called
        todo = [c for m in called for c in ast.walk(m) if isinstance(c, ast.Call)]
    return found


def _forced_ones(ctx: ModuleContext) -> set[str]:
    """Attribute names whose every assignment in the file is the literal 1 (`args.train.micro_batch_size = 1`)."""
    def collect() -> set[str]:
        values: dict[str, list[ast.expr]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                if isinstance(target, ast.Attribute):
                    values.setdefault(target.attr, []).append(node.value)
        return {name for name, vs in values.items() if all(
            isinstance(v, ast.Constant) and v.value == 1 and not isinstance(v.value, bool) for v in vs)}
    return ctx.memo(("mld014.forced_ones",), collect)
