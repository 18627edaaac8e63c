"""Layers with weights kept on an nn.Module in a plain list, tuple or dict (MLD045): `self.layers = [nn.Linear(...)
for _ in range(n)]`. PyTorch registers only Module, Parameter and buffer attributes, so these layers are not in
`model.parameters()`, `state_dict()`, `.to(device)` or `eval()`."""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .optim_untrained import has_parameters

# what registers a plain holder's layers after all, anywhere in the class (a container registers them only when it
# is built from the holder: _wrapped_later)
REGISTERS = ("add_module(", "register_module(", "setattr(self")
# modules without weights whose mode matters: a plain holder hides them from eval(), so they keep dropping
DROPOUT = re.compile(r"Dropout", re.IGNORECASE)
# bare tensors appended one by one: TorchScript inference copies keep them in plain lists on purpose
PARAMETER = re.compile(r"(^|\.)Parameter$")


def plain_holder_of_layers(assign: ast.Assign, ctx: ModuleContext) -> tuple[str, ast.Call] | None:
    """(the attribute, a layer with weights it holds) when `assign` keeps layers with weights on self in a plain
    list, tuple or dict inside an nn.Module subclass that registers them nowhere; else None."""
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0]
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
        return None
    cls = ctx.enclosing_class(assign)
    if cls is None:
        return None
    layers = _held(assign.value) or _appended(assign, target.attr, cls, ctx)
    if not layers or not any(_module_base(b, ctx) for b in cls.bases):
        return None
    weighted = next((layer for layer in layers if has_parameters(layer, ctx)), None)
    if weighted is None or _registered(cls, ctx) or _wrapped_later(cls, target.attr, ctx):
        return None
    return target.attr, weighted


def plain_holder_of_dropout(assign: ast.Assign, ctx: ModuleContext) -> tuple[str, ast.Call] | None:
    """(the attribute, a dropout module it holds) for `self.dropout_list = []` filled with dropout modules in an
    nn.Module subclass that registers them nowhere: eval() never reaches them (mt-dnn's per-task dropouts)."""
    target = assign.targets[0] if len(assign.targets) == 1 else None
    cls = ctx.enclosing_class(assign)
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self") \
            or cls is None:
        return None
    layers = _held(assign.value) or _appended(assign, target.attr, cls, ctx)
    dropout = next((layer for layer in layers if DROPOUT.search(ctx.call_name(layer) or "")), None)
    if dropout is None or not any(_module_base(b, ctx) for b in cls.bases) or _registered(cls, ctx) \
            or _wrapped_later(cls, target.attr, ctx):
        return None
    return target.attr, dropout


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


def _appended(assign: ast.Assign, attribute: str, cls: ast.ClassDef, ctx: ModuleContext) -> list[ast.Call]:
    """The modules an empty `self.<attribute> = []` (or `{}`) is filled with in its class: `self.conv.append(layer)`
    or `self.heads[name] = layer`, the layer built in the call or bound to a name just before (every filler must be
    a module construction we can see)."""
    value = assign.value
    if not (isinstance(value, ast.List | ast.Dict) and not (value.keys if isinstance(value, ast.Dict) else value.elts)):
        return []
    fillers: list[ast.expr] = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and node is not assign \
                and any(_is_self_attribute(t, attribute) for t in node.targets):
            return []  # also bound to a container or an argument elsewhere: the fillers may go there
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and _is_self_attribute(node.func.value, attribute) and len(node.args) == 1:
            fillers.append(node.args[0])
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and _is_self_attribute(node.targets[0].value, attribute):
            fillers.append(node.value)
    built = []
    for filler in fillers:
        if isinstance(filler, ast.Attribute) and isinstance(filler.value, ast.Name) and filler.value.id == "self":
            continue  # a second handle on a registered submodule (`self.stages.append(self.decoder)`)
        values = [filler] if isinstance(filler, ast.Call) else ctx.values_of(filler, filler)[:1]
        if not values or not isinstance(values[0], ast.Call) or PARAMETER.search(ctx.call_name(values[0]) or ""):
            return []
        built.append(values[0])
    return built


def _is_self_attribute(node: ast.AST, attribute: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attribute and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _module_base(base: ast.expr, ctx: ModuleContext, depth: int = 4) -> bool:
    """torch's nn.Module, directly or through this file's classes (a few levels: a file may name its bases in a
    cycle, which Python rejects only when it runs)."""
    name = ctx.qualname(base) or ""
    return name in {"torch.nn.Module", "torch.nn.modules.module.Module"} or (
        depth > 0 and name in ctx.classes and any(_module_base(b, ctx, depth - 1) for b in ctx.classes[name].bases))


# by the last part of the name: a library's own ModuleList (mmcv, mmengine) registers as well
CONTAINERS = {"Sequential", "ModuleList", "ModuleDict"}


def _wrapped_later(cls: ast.ClassDef, attribute: str, ctx: ModuleContext) -> bool:
    """`self.fc = nn.Sequential(self.noisy_layers[0], nn.ReLU(), self.noisy_layers[1])`: the layers are also held by
    a registered container (the plain list is only a second handle on them)."""
    for call in ast.walk(cls):
        if isinstance(call, ast.Call) and (ctx.call_name(call) or "").rsplit(".", 1)[-1] in CONTAINERS:
            for node in ast.walk(call):
                if _is_self_attribute(node, attribute):
                    return True
    return False


def _registered(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    text = ast.get_source_segment(ctx.source, cls) or ""
    return any(word in text for word in REGISTERS)
