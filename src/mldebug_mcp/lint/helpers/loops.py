"""Helpers for rules about the order of calls in a training step."""

from __future__ import annotations

import ast

from ..context import CHILD_FIELDS, ModuleContext, node_fields
from .graph import callee

LOOPS = (ast.For, ast.AsyncFor, ast.While)

# The canonical correct step, the GOOD example of several optimiser-loop rules.
CORRECT_TRAINING_LOOP = (
    "def train(model, opt, loader, loss_fn):\n"
    "    for x, y in loader:\n"
    "        opt.zero_grad()\n"
    "        loss = loss_fn(model(x), y)\n"
    "        loss.backward()\n"
    "        opt.step()\n"
)
ZERO_GRAD = {"zero_grad"}


def calls_in_order(body: list[ast.stmt]) -> list[ast.Call]:
    """Calls in a block in execution order (source order), not entering nested defs or classes."""
    found: list[ast.Call] = []
    for stmt in body:
        _calls(stmt, found)
    return found


_NOT_ENTERED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _calls(node: ast.AST, found: list[ast.Call]) -> None:
    if isinstance(node, _NOT_ENTERED):
        return
    AST = ast.AST
    # arguments are evaluated before the call itself; the fields that may hold a node (the same nodes)
    fields = CHILD_FIELDS.get(type(node))
    for name in fields if fields is not None else node_fields(type(node)):
        value = getattr(node, name, None)
        if type(value) is list:
            for item in value:
                if isinstance(item, AST):
                    _calls(item, found)
        elif isinstance(value, AST):
            _calls(value, found)
    if isinstance(node, ast.Call):
        found.append(node)


_JUMPS = (ast.Continue, ast.Break, ast.Return, ast.Raise)
_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def leaves_before_later_code(node: ast.AST, within: ast.AST, ctx: ModuleContext) -> bool:
    """Whether the statement holding `node` is followed, in its own block or a block around it up to `within`, by
    a continue, break, return or raise with no `.step()` call before it: `except OOM: optimizer.zero_grad();
    continue` never reaches the step that follows the try in that iteration. A break counts only when it leaves a
    loop that is `within` or around it (code after an inner loop still runs)."""
    current: ast.AST = node
    for parent in ctx.ancestors(node):
        if isinstance(current, ast.stmt):
            for field in _BLOCKS:
                block = getattr(parent, field, None)
                if type(block) is list and current in block:
                    for later in block[block.index(current) + 1:]:
                        if isinstance(later, _JUMPS):
                            return not isinstance(later, ast.Break) or _loop_left(later, within, ctx)
                        if _steps(later):
                            return False  # a step runs before the jump (`return loss` at a method's end)
                    break
        if parent is within or isinstance(parent, LOOPS + (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        current = parent
    return False


def _steps(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "step"
               for n in ast.walk(stmt))


def _loop_left(jump: ast.stmt, within: ast.AST, ctx: ModuleContext) -> bool:
    loop = ctx.enclosing(jump, LOOPS)
    return loop is within or (loop is not None and loop in ctx.ancestors(within))


def is_backward(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "backward"


def is_any_backward(call: ast.Call) -> bool:
    """`loss.backward()`, or Lightning's `self.manual_backward(loss)`."""
    return isinstance(call.func, ast.Attribute) and call.func.attr in {"backward", "manual_backward"}


def is_optimizer_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """`opt.step()` / `scaler.step(opt)` with no arguments other than an optimiser or closure."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return False
    receiver = call.func.value
    name = callee(receiver).lower()
    if "sched" in name or "lr" == name or name.endswith("_lr"):
        return False
    built = ctx.constructed(receiver) or ""
    if "lr_scheduler" in built:
        return False
    if "scaler" in name or built.endswith("GradScaler"):
        return True
    return "opt" in name or built.startswith("torch.optim.") or "optim" in built.lower() or name in {"solver"}


def is_scheduler_step(call: ast.Call, ctx: ModuleContext) -> bool:
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return False
    receiver = call.func.value
    name = callee(receiver).lower()
    built = ctx.constructed(receiver) or ""
    return "sched" in name or "lr_scheduler" in built


def is_zero_grad(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in ZERO_GRAD


def sets_grad_to_none(body: list[ast.stmt]) -> bool:
    """`p.grad = None` or `p.grad.zero_()` anywhere in the block: a manual zero_grad."""
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets
        ):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"zero_", "detach_"}:
            if isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "grad":
                return True
    return False
