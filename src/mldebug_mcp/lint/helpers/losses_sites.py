"""Where MLD001 reports and what it reads at a loss call: a noqa comment on the call, the model handed with a
loss (`module=`, or the layers a base class chains), an activation kept on self by another method."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from ..noqa import suppressed
from .kinds import Traced, traced_module_output
from .losses import loss_source
from .losses_elsewhere import FRAMEWORK_NETS, LOSS_KEYWORDS, MODEL_KEYWORDS


def silenced(call: ast.Call, ctx: ModuleContext, code: str) -> bool:
    """A noqa comment (bare or naming `code`) on the loss call: it also silences the activation reported elsewhere."""
    return suppressed(ctx.lines, call.lineno, call.end_lineno or call.lineno, code)


def loss_handed_with_model(call: ast.Call, ctx: ModuleContext) -> tuple[str, ast.AST, Traced | None] | None:
    """(the loss's name, where it is given, what the model handed with it returns) for a loss handed over with a
    model: skorch's `NeuralNetClassifier(module, criterion=nn.CrossEntropyLoss)` (or its default loss, then
    reported at `criterion=` or the call), a base class given its layers and `loss=` (modules_handed)."""

    net = ctx.call_name(call)
    given = next((k.value for k in call.keywords if k.arg in LOSS_KEYWORDS), None)
    if net in FRAMEWORK_NETS:
        module = next((k.value for k in call.keywords if k.arg == "module"), call.args[0] if call.args else None)
        if module is None or isinstance(module, ast.Starred):
            return None
        found = traced_module_output(module, ctx)
        loss = loss_source(given, ctx) if given is not None else None
        name, node = (loss.name, loss.node) if loss is not None else (FRAMEWORK_NETS[net], given or call)
    elif given is not None:
        loss = loss_source(given, ctx)
        if loss is None:
            return None
        found = modules_handed(call, ctx)
        name, node = loss.name, loss.node
    else:
        return None
    return name, node, found


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


def helper_call(call: ast.Call, where: ast.expr, found: Traced, ctx: ModuleContext) -> tuple[ast.Call, str] | None:
    """The call of a method of the same class (`y = self.predict_on_batch(x)`, `s = self.get_scores(f)`) whose
    activation the loss is given, when every origin of it lies in that method: a scoring helper shared with
    prediction, so the fix goes where the training step calls it (the step should take the logits)."""
    value = where
    if isinstance(where, ast.Name):
        values = [v for v in ctx.values_of(where, at=where) if ctx.scope_of(v) is ctx.scope_of(call)]
        value = values[0] if len(values) == 1 else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "self"):
        return None
    cls = ctx.enclosing_class(call)
    method = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == value.func.attr), None) \
        if cls is not None else None
    if method is None or method.name in {"forward", "__call__"} or not found.origins \
            or method is ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if not all(ctx.enclosing(o, (ast.FunctionDef, ast.AsyncFunctionDef)) is method for o in found.origins):
        return None
    return value, f" of {method.name}() (line {found.origins[0].lineno}, a helper the step calls here)"
