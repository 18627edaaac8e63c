"""The parts a model class of another file builds, for an optimiser built from a handed model's parts.

`def build_opt_lr(model): groups = [{"params": model.backbone.parameters()}, {"params": model.head.parameters()}]`
in the training script, while the model's class, in its own file, also builds `self.down = nn.ConvTranspose2d(...)`
and runs it in forward: the script cannot see the class, so each file tells the run the parts of its model
classes (`part:<attribute>` -> 'Class@file|every part|weighted parts run outside __init__, with their lines'),
and the script finds the one class that builds every part it lists (optim_children.left_out_parts).
"""

from __future__ import annotations

import ast
import os

from ..context import ModuleContext
from .optim_params import dotted
from .optim_untrained import has_parameters, strip_moves

PART = "part:"


def part_facts(ctx: ModuleContext) -> dict[str, str]:
    """What this file tells the run: for each model class with two parts or more, its parts."""
    found: dict[str, str] = {}
    if not ctx.classes or not ctx.has_text("Module"):
        return found
    base = os.path.basename(ctx.path)
    for name, cls in ctx.classes.items():
        init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None or not any((ctx.qualname(b) or "").startswith("torch.nn.") for b in cls.bases):
            continue
        parts = [(n.targets[0].attr, n) for n in ast.walk(init) if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Attribute) and dotted(n.targets[0].value) == "self"
                 and isinstance(n.value, ast.Call)]
        if len({attr for attr, _ in parts}) < 2:
            continue
        called = called_parts(cls)
        weighted = [f"{attr}:{node.lineno}" for attr, node in parts if attr in called
                    and isinstance(strip_moves(node.value), ast.Call) and has_parameters(strip_moves(node.value), ctx)
                    and not freezes_in(cls, f"self.{attr}", ctx)]
        told = f"{name}@{base}|{','.join(sorted({a for a, _ in parts}))}|{','.join(weighted)}"
        for attr, _ in parts:
            found.setdefault(f"{PART}{attr}", told)
    return found


def called_parts(cls: ast.ClassDef) -> set[str]:
    """The attributes of self called (or whose method is called) in a method other than __init__."""
    called = set()
    for method in cls.body:
        if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and method.name != "__init__":
            for node in ast.walk(method):
                if isinstance(node, ast.Call):
                    parts = (dotted(node.func) or "").split(".")
                    if len(parts) >= 2 and parts[0] == "self":
                        called.add(parts[1])
    return called


def freezes_in(node: ast.AST, path: str, ctx: ModuleContext) -> bool:
    """The source of `node` (unparsed once per node) sets `path`'s requires_grad, puts it in eval mode, or
    loops over its parameters."""
    text = ctx.memo(("optim_children.text", node), lambda: ast.unparse(node))
    return any(w in text for w in (f"{path}.requires_grad", f"{path}.eval(", f"{path}.parameters():"))


def told_parts(listed: set[str], ctx: ModuleContext) -> list[tuple[str, str]] | None:
    """(attribute, 'file:line') of the weighted parts run in forward of the one model class of another file
    that builds every listed part; None when no file tells of such a class."""
    if ctx.project is None:
        return None
    told = {ctx.project.kind_returned_by(f"{PART}{attr}") for attr in sorted(listed)}
    if len(told) != 1 or None in told:
        return None
    owner, every, weighted = told.pop().split("|")
    if not listed <= set(every.split(",")):
        return None
    where = owner.split("@", 1)[1]
    return [(attr, f"{where}:{line}") for attr, line in (p.split(":") for p in weighted.split(",") if p)]
