"""Where MLD001 reports and what it reads at a loss call: a noqa comment on the call, the model handed with a
loss (`module=`, or the layers a base class chains), an activation kept on self by another method."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from ..noqa import suppressed
from .kinds import Traced, traced_module_output
from .losses_elsewhere import MODEL_KEYWORDS


def silenced(call: ast.Call, ctx: ModuleContext, code: str) -> bool:
    """A noqa comment (bare or naming `code`) on the loss call: it also silences the activation reported elsewhere."""
    return suppressed(ctx.lines, call.lineno, call.end_lineno or call.lineno, code)


def modules_handed(call: ast.Call, ctx: ModuleContext) -> Traced | None:
    """What the model handed with a loss returns: `module=`/`model=`, else the positional modules a base class
    chains (`super().__init__(nn.LazyLinear(1), nn.Sigmoid(), loss=...)`: the last one decides)."""
    given = next((k.value for k in call.keywords if k.arg in MODEL_KEYWORDS), None)
    if given is not None:
        return traced_module_output(given, ctx)
    layers = [a for a in call.args if not isinstance(a, ast.Starred)]
    if not layers or len(layers) != len(call.args):
        return None
    names = [ctx.call_name(a) or "" for a in layers]
    if not all(n.startswith("torch.nn.") and n[9:10].isupper() for n in names):
        return None  # only layers written out here are read as a chain
    return traced_module_output(layers[-1], ctx)


def kept_by_other_method(call: ast.Call, where: ast.expr, found: Traced, ctx: ModuleContext) -> str:
    """` kept in self.x by forward() (line N)` when the loss reads `self.x`, which another method set to the
    activation's output (a GAN's forward keeps it for the visuals, backward_G hands it to the loss)."""
    if not (isinstance(where, ast.Attribute) and isinstance(where.value, ast.Name) and where.value.id == "self"):
        return ""
    method = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    setters = {ctx.enclosing(o, (ast.FunctionDef, ast.AsyncFunctionDef)) for o in found.origins}
    if method is None or method in setters or len(setters) != 1 or None in setters:
        return ""
    setter = setters.pop()
    return f" kept in self.{where.attr} by {setter.name}() (line {found.origins[0].lineno})"
