"""A module's trainable tensor kept as a plain attribute: `self.val = torch.zeros(n, requires_grad=True)` in a class
whose forward reads it. nn.Module registers only nn.Parameter (and submodules), so `model.parameters()`, and every
optimiser built from it, leaves the tensor out: it receives gradients that nothing ever applies (MLD015)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .graph import callee
from .optim_params import self_attribute

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def unregistered_tensors(ctx: ModuleContext) -> list[tuple[ast.Assign, str]]:
    """(the assignment, `self.<name>`) for each tensor built with requires_grad on in a method of a class with a
    forward, read by that forward, and never handed to anything (a hand-made optimiser list would hold it)."""
    if not any(k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in ctx.by_type.get(ast.keyword, ())) and not ctx.has_text("requires_grad_"):
        return []  # no tensor is built trainable here: no class needs reading
    found = []
    for cls in ctx.by_type.get(ast.ClassDef, ()):
        methods = [m for m in cls.body if isinstance(m, FUNCTIONS)]
        forward = next((m for m in methods if m.name == "forward"), None)
        if forward is None:
            continue
        for method in methods:
            for node in ast.walk(method):
                if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and self_attribute(node.targets[0])
                        and _trainable_plain_tensor(node.value, ctx)):
                    continue
                name = node.targets[0].attr
                if _read_in(forward, name) and not _handed_on(cls, name):
                    found.append((node, f"self.{name}"))
    return found


def _trainable_plain_tensor(value: ast.expr, ctx: ModuleContext) -> bool:
    """`torch.zeros(..., requires_grad=True)` or `torch.randn(...).requires_grad_()`, not inside nn.Parameter."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "requires_grad_" \
            and not any(isinstance(a, ast.Constant) and a.value is False for a in value.args):
        value = value.func.value
        if isinstance(value, ast.Call) and (ctx.call_name(value) or "").startswith("torch."):
            return True
    called = ctx.call_name(value) if isinstance(value, ast.Call) else None
    if not (called or "").startswith("torch.") or called.endswith("Parameter"):
        return False
    return any(k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in value.keywords)


def _read_in(function: ast.AST, name: str) -> bool:
    return any(self_attribute(n, name) and isinstance(n.ctx, ast.Load) for n in ast.walk(function))


def _handed_on(cls: ast.ClassDef, name: str) -> bool:
    """`self.<name>` passed to a call, listed in a literal, returned or bound again as a Parameter somewhere in the
    class: something may hold or register it."""
    return any(any(self_attribute(p, name) for p in parts) for _, parts in holding_places(cls))


def holding_places(cls: ast.ClassDef) -> Iterator[tuple[ast.AST, list[ast.expr]]]:
    """(node, the values it may keep or hand on) for each call (its arguments), literal (its elements) and return
    in the class: where a tensor attribute could reach an optimiser."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Call):
            yield node, [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
            yield node, [*getattr(node, "elts", ()), *getattr(node, "values", ())]
        elif isinstance(node, ast.Return) and node.value is not None:
            yield node, [node.value]


# `.float()` is left out: on the default float32 tensor it returns the Parameter itself (morl-baselines)
MOVES = {"to", "cuda", "double", "half", "bfloat16"}


def moved_parameters(ctx: ModuleContext) -> list[tuple[ast.Assign, str, str]]:
    """(the assignment, `self.<name>`, the move) for `self.w = nn.Parameter(t).to(device)` (or `.cuda()`,
    `.double()`) in a method of a class: on another device or dtype the move returns a plain tensor copy, which
    nn.Module does not register (DeepCTR-Torch's dense weight, blind split 14)."""
    if not ctx.has_text("Parameter"):
        return []
    found = []
    for node in ctx.by_type.get(ast.Assign, ()):
        value = node.value
        if not (len(node.targets) == 1 and self_attribute(node.targets[0]) and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute) and value.func.attr in MOVES
                and isinstance(value.func.value, ast.Call)
                and (ctx.call_name(value.func.value) or "").endswith("nn.Parameter")):
            continue
        if ctx.enclosing_class(node) is not None and (value.func.attr not in {"to", "cuda"}
                                                      or _made_on_cpu(value.func.value, ctx)):
            found.append((node, f"self.{node.targets[0].attr}", value.func.attr))
    return found


# torch's factories: without `device=` they make the tensor on the CPU
FACTORIES = {"randn", "rand", "zeros", "ones", "empty", "full", "tensor", "Tensor", "FloatTensor", "arange", "eye",
             "linspace", "from_numpy", "randint", "normal"}


def _made_on_cpu(parameter: ast.Call, ctx: ModuleContext) -> bool:
    """The tensor wrapped is visibly on the CPU (made by a factory with no device, or `.cpu()`), so a move to a GPU
    copies it. One that is moved inside (`nn.Parameter(torch.randn(n).to(device)).to(device)`: the outer move is the
    Parameter itself) or comes from elsewhere (an input already on the device, Graph-WaveNet's adaptive adjacency
    from `aptinit`) is left alone."""
    if not parameter.args:
        return False
    made = ctx.resolve(parameter.args[0])
    if not isinstance(made, ast.Call):
        return False
    name = callee(made.func)
    if name == "cpu":
        return True
    return name in FACTORIES and not any(k.arg == "device" for k in made.keywords)
