"""An optimiser that is built and zeroed but never stepped, nor handed to anything that could step it (MLD038)."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import LOOPS, is_any_backward
from .optim_params import dotted, is_optimizer_name

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# what may be read from an optimiser without stepping it or handing it on
HARMLESS = frozenset({"zero_grad", "param_groups", "state_dict", "load_state_dict", "state", "defaults",
                      "add_param_group"})


def unstepped_backward(built: ast.Assign, ctx: ModuleContext) -> tuple[str, ast.Call] | None:
    """For `opt = torch.optim.Adam(...)` (or `self.opt = ...`): (the name, the last backward of the code that zeroes
    it) when every later read of the name is a zero_grad or a look at its state, and a loop of the same function
    (or class) zeroes it and runs a backward (a training loop: _share_loop); else None."""
    if len(built.targets) != 1 or not is_optimizer_name(ctx.call_name(built.value)):
        return None
    target = built.targets[0]
    name = dotted(target)
    if name is None or not (isinstance(target, ast.Name) or name.startswith("self.") and name.count(".") == 1):
        return None
    if isinstance(target, ast.Name):
        scope = ctx.enclosing(built, FUNCTIONS) or ctx.tree
    else:
        scope = ctx.enclosing_class(built)
        if scope is not None and not _plain_class(scope):
            return None  # a base class of the project or a framework may step it
    if scope is None:
        return None
    zeros = []
    for node in ast.walk(scope):
        if node is target or not isinstance(node, ast.Name | ast.Attribute) or dotted(node) != name:
            continue
        if isinstance(getattr(node, "ctx", None), ast.Store | ast.Del):
            return None  # bound again: another optimiser may be stepped under this name
        parent = ctx.parent(node)
        if _into_lr_schedule(node, parent, ctx):
            continue  # a schedule only sets the learning rate: it never steps the optimiser
        if not (isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in HARMLESS):
            return None  # stepped, handed on, stored, returned: something may step it
        if parent.attr == "zero_grad":
            zeros.append(parent)
    # a training loop: a backward in a loop that also zeroes this optimiser (a test's one backward is not one)
    backwards = [c for c in ast.walk(scope) if isinstance(c, ast.Call) and is_any_backward(c)
                 and any(_share_loop(c, z, ctx) for z in zeros)]
    return (name, max(backwards, key=lambda c: (c.lineno, c.col_offset))) if backwards else None


def _share_loop(backward: ast.AST, zero: ast.AST, ctx: ModuleContext) -> bool:
    """Both in one loop that trains: not in a test function, and not a loop that reads the gradients it makes
    (a check of which parameters receive a gradient)."""
    loop = ctx.enclosing(backward, LOOPS + FUNCTIONS)
    if not isinstance(loop, LOOPS) or loop not in set(ctx.ancestors(zero)):
        return False
    function = ctx.enclosing(loop, FUNCTIONS)
    if function is not None and function.name.startswith("test"):
        return False
    return not any(isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.ctx, ast.Load)
                   for n in ast.walk(loop))


def _plain_class(cls: ast.ClassDef) -> bool:
    """No base class other than object or nn.Module: no inherited method can step the optimiser."""
    return all((dotted(b) or "").rsplit(".", 1)[-1] in {"object", "Module"} for b in cls.bases)


def _into_lr_schedule(node: ast.AST, parent: ast.AST, ctx: ModuleContext) -> bool:
    """`StepLR(optimizer, ...)`, `get_linear_schedule_with_warmup(optimizer, ...)`: the optimiser handed to a
    torch or transformers learning-rate schedule, whose step() changes the rate and nothing else."""
    if not isinstance(parent, ast.Call) or not (parent.args[:1] == [node] or any(
            k.arg == "optimizer" and k.value is node for k in parent.keywords)):
        return False
    built = ctx.call_name(parent) or ""
    return built.startswith("torch.optim.lr_scheduler.") or (
        built.startswith("transformers.") and built.rsplit(".", 1)[-1].startswith("get_")
        and "schedule" in built)
