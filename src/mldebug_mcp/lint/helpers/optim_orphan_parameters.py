"""An nn.Parameter kept on a class that is not an nn.Module and that builds its own optimisers from its networks'
parameters: `self.log_std = nn.Parameter(...)` on a PPO agent whose actor optimiser is
`Adam(self.actor_net.parameters())`. No `.parameters()` call can reach an attribute of a plain object, so unless the
class lists the tensor itself the loss fills its gradient and nothing applies it (MLD015; a PPO agent's exploration
noise that never changes, blind split 13)."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import callee
from .optim_clip_mismatch import CLIPS  # read the tensor's gradient, do not hold it
from .optim_params import dotted, is_optimizer_name, self_attribute
from .optim_unregistered import holding_places

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# a base class that may register the tensor or build an optimiser over everything: a module, a Lightning module
MODULE_PARTS = {"nn", "torch", "pl"}


def orphan_parameters(ctx: ModuleContext) -> list[tuple[ast.Assign, str]]:
    """(the assignment, `self.<name>`) for each such Parameter that a method other than the one building it reads
    and that nothing in the class lists, hands to a call or returns."""
    if not ctx.has_text("Parameter"):
        return []
    # one pass over the module's assignments and calls: the classes that build both (few; most build neither)
    built = [a for a in ctx.by_type.get(ast.Assign, ()) if len(a.targets) == 1 and self_attribute(a.targets[0])
             and isinstance(a.value, ast.Call) and (ctx.call_name(a.value) or "").endswith("nn.Parameter")
             and not _frozen(a.value)]
    if not built:
        return []
    optimising = {ctx.enclosing_class(c) for c in ctx.by_type.get(ast.Call, ())
                  if c.func is not None and is_optimizer_name(ctx.call_name(c))}
    found = []
    for assign in built:
        cls = ctx.enclosing_class(assign)
        if cls is None or cls not in optimising or any(_module_like(base, ctx) for base in cls.bases) \
                or any(_own_parameters(n) for n in ast.walk(cls)):
            continue
        method = ctx.enclosing(assign, FUNCTIONS)
        name = assign.targets[0].attr
        if method is not None and _read_elsewhere(cls, method, name) and not _held(cls, name, ctx):
            found.append((assign, f"self.{name}"))
    return found


def _frozen(built: ast.Call) -> bool:
    """`nn.Parameter(mask, requires_grad=False)`: a constant kept as a parameter, never meant to train."""
    flag = built.args[1] if len(built.args) > 1 else next((k.value for k in built.keywords
                                                         if k.arg == "requires_grad"), None)
    return flag is not None and not (isinstance(flag, ast.Constant) and flag.value is True)


def _module_like(base: ast.expr, ctx: ModuleContext) -> bool:
    if isinstance(base, ast.Subscript):  # `Algorithm[np.ndarray]`: a generic base
        base = base.value
    parts = (ctx.qualname(base) or dotted(base) or "").split(".")
    return "Module" in parts[-1] or any(p in MODULE_PARTS or "lightning" in p for p in parts)


def _own_parameters(node: ast.AST) -> bool:
    """`self.parameters()` (or named_parameters): a base class may be a module after all."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr in {"parameters", "named_parameters"} and isinstance(node.func.value, ast.Name) \
        and node.func.value.id == "self"


def _read_elsewhere(cls: ast.ClassDef, builder: ast.AST, name: str) -> bool:
    return any(m is not builder and any(self_attribute(n, name) and isinstance(n.ctx, ast.Load) for n in ast.walk(m))
               for m in cls.body if isinstance(m, FUNCTIONS))


def _held(cls: ast.ClassDef, name: str, ctx: ModuleContext) -> bool:
    """`self.<name>` listed in a literal, handed to a call that is not torch's own arithmetic, or returned anywhere
    in the class, outside a gradient clip: an optimiser may hold it."""
    for node, parts in holding_places(cls):
        called = ctx.call_name(node) or ""  # None for a literal or a return
        if called.startswith("torch.") and not is_optimizer_name(called):
            continue  # torch.exp(self.log_std): computes with it, holds nothing
        if any(self_attribute(p, name) for p in parts) and not _in_clip(node, ctx):
            return True
    return False


def _in_clip(node: ast.AST, ctx: ModuleContext) -> bool:
    return any(isinstance(a, ast.Call) and callee(a.func) in CLIPS for a in [node, *ctx.ancestors(node)])
