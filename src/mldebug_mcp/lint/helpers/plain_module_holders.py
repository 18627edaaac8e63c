"""Layers with weights kept on an nn.Module in a plain list, tuple or dict (MLD045): `self.layers = [nn.Linear(...)
for _ in range(n)]`. PyTorch registers only Module, Parameter and buffer attributes, so these layers are not in
`model.parameters()`, `state_dict()`, `.to(device)` or `eval()`."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_untrained import has_parameters

# what registers a plain holder's layers after all, anywhere in the class
REGISTERS = ("ModuleList(", "ModuleDict(", "Sequential(*", "add_module(", "register_module(", "setattr(self")


def plain_holder_of_layers(assign: ast.Assign, ctx: ModuleContext) -> tuple[str, ast.Call] | None:
    """(the attribute, a layer with weights it holds) when `assign` keeps layers with weights on self in a plain
    list, tuple or dict inside an nn.Module subclass that registers them nowhere; else None."""
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0]
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
        return None
    layers = _held(assign.value)
    if not layers:
        return None
    cls = ctx.enclosing_class(assign)
    if cls is None or not any(_module_base(b, ctx) for b in cls.bases):
        return None
    weighted = next((layer for layer in layers if has_parameters(layer, ctx)), None)
    if weighted is None or _registered(cls, ctx) or _wrapped_later(cls, target.attr, ctx):
        return None
    return target.attr, weighted


def _held(value: ast.expr) -> list[ast.Call]:
    """The module constructions a list/tuple/dict literal or comprehension holds (every element must be one)."""
    if isinstance(value, ast.List | ast.Tuple):
        elements = value.elts
    elif isinstance(value, ast.ListComp):
        elements = [value.elt]
    elif isinstance(value, ast.Dict):
        elements = [v for v in value.values if v is not None]
    elif isinstance(value, ast.DictComp):
        elements = [value.value]
    else:
        return []
    if not elements or not all(isinstance(e, ast.Call) for e in elements):
        return []
    return elements


def _module_base(base: ast.expr, ctx: ModuleContext, depth: int = 4) -> bool:
    """torch's nn.Module, directly or through this file's classes (a few levels: a file may name its bases in a
    cycle, which Python rejects only when it runs)."""
    name = ctx.qualname(base) or ""
    return name in {"torch.nn.Module", "torch.nn.modules.module.Module"} or (
        depth > 0 and name in ctx.classes and any(_module_base(b, ctx, depth - 1) for b in ctx.classes[name].bases))


CONTAINERS = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}


def _wrapped_later(cls: ast.ClassDef, attribute: str, ctx: ModuleContext) -> bool:
    """`self.fc = nn.Sequential(self.noisy_layers[0], nn.ReLU(), self.noisy_layers[1])`: the layers are also held by
    a registered container (the plain list is only a second handle on them)."""
    for call in ast.walk(cls):
        if isinstance(call, ast.Call) and ctx.call_name(call) in CONTAINERS:
            for node in ast.walk(call):
                if (isinstance(node, ast.Attribute) and node.attr == attribute and isinstance(node.value, ast.Name)
                        and node.value.id == "self"):
                    return True
    return False


def _registered(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    text = ast.get_source_segment(ctx.source, cls) or ""
    return any(word in text for word in REGISTERS)
