"""A weighted module kept on `self` by a trainer class, run in its training step, held by none of its optimisers.

`self.loss_fn = InfoMaxLoss().to(device)` (a loss holding discriminators) or `self.head = nn.Linear(...)`
next to `self.optimizer = Adam(self.encoder.parameters())`, and a method that backwards calls
`self.loss_fn(...)`: backward fills its gradients and no optimiser of the class updates them. The
attribute version of optim_untrained: every use of the attribute in the class must be a call (or a move,
`.to()`); reading its parameters, freezing it, handing it to anything else may reach an optimiser.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_params import covered, dotted, is_optimizer_name, params_argument, within
from .optim_steps import FUNCTIONS, call_sites
from .optim_untrained import has_parameters, strip_moves

HARMLESS = {"to", "cuda", "cpu", "float", "double", "half", "train", "forward"}


def untrained_attributes(optimizer: ast.Call, ctx: ModuleContext) -> list[tuple[str, int]]:
    """(`self.X`, line) of weighted modules on self that the class's optimisers leave out; reported once per
    class, at its first optimiser."""
    cls = ctx.enclosing_class(optimizer)
    if cls is None:
        return []
    facts = ctx.memo(("optim_untrained_attrs", cls), lambda: _class_facts(cls, ctx))
    if facts is None or facts[0] is not optimizer:
        return []
    return facts[1]


def _class_facts(cls: ast.ClassDef, ctx: ModuleContext) -> tuple[ast.Call, list[tuple[str, int]]] | None:
    calls = [n for n in ast.walk(cls) if isinstance(n, ast.Call)]
    optimizers = sorted((c for c in calls if is_optimizer_name(ctx.call_name(c))), key=lambda c: c.lineno)
    if not optimizers or any(ctx.method_name(c) == "add_param_group" for c in calls):
        return None
    held: set[str] = set()
    for call in optimizers:
        params = params_argument(call)
        sources = covered(params, ctx) if params is not None else None
        if not sources:
            return None  # an optimiser we cannot read may hold anything
        held |= {path for path, _ in sources}
    if not any(path.startswith("self.") for path in held):
        return None
    found = []
    loads: dict[str, list[ast.Attribute]] = {}  # each attribute read, by its dotted path: one walk of the class
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and (path := dotted(node)):
            loads.setdefault(path, []).append(node)
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                and dotted(node.targets[0].value) == "self"):
            continue
        path = dotted(node.targets[0])
        value = strip_moves(node.value)
        if not isinstance(value, ast.Call) or not has_parameters(value, ctx) \
                or any(within(path, h) or within(h, path) for h in held) or path in dict(found):
            continue
        if _only_called_in_training(loads.get(path, ()), ctx):
            found.append((path, node.lineno))
    return optimizers[0], found


def _only_called_in_training(reads: list[ast.Attribute], ctx: ModuleContext) -> bool:
    """Every read of the attribute (`reads`, in the class's walk order) is a call in a training step, or a move."""
    called = False
    for node in reads:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            if _in_backward_step(parent, ctx):
                called = True
            continue
        if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in HARMLESS:
            continue
        return False  # its parameters read, frozen, handed on, stored: it may reach an optimiser
    return called


def _in_backward_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """In a function that backwards, or in a helper (`self.compute_loss(batch)`) such a function calls."""
    if any(a in ctx.backward_scopes for a in ctx.ancestors(call)):
        return True
    function = ctx.enclosing(call, FUNCTIONS)
    return function is not None and any(
        any(a in ctx.backward_scopes for a in ctx.ancestors(site)) for site in call_sites(function, ctx))
