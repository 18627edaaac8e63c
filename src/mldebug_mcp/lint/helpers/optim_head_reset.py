"""A model whose head is rebuilt in place after its optimiser was built: `model.reset_classifier(n)` (timm),
`model.resize_token_embeddings(n)` (transformers), or a method of the project's own model class that sets a new
layer on self (`def set_classes(self, n): self.head = nn.Linear(self.dim, n)`). The optimiser (built here with
torch.optim, or by a project builder handed the model: `build_optimizer(cfg, model)`) holds the old layer's
tensors; the new layer gets gradients and never moves."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import words
from .graph import callee
from .optim_params import covered, dotted, is_optimizer_name, params_argument, within
from .optim_sched_order import OPTIMIZER_WORDS
from .optim_untrained import has_parameters

# library methods that replace a layer of the model with a newly built one
REBUILDING_METHODS = {"reset_classifier", "resize_token_embeddings"}
BUILDER_WORDS = {"build", "make", "create", "get", "init", "setup", "configure"}


def head_reset_after_optimizer(ctx: ModuleContext) -> list[tuple[ast.Assign, ast.Call, str]]:
    """(the optimiser's assignment, the call that rebuilds the head later, the model's path) in one scope, when
    the optimiser is still used after the rebuild and is not rebuilt or extended after it."""
    found = []
    for call in ctx.by_type.get(ast.Call, ()):
        func = call.func
        if not isinstance(func, ast.Attribute) or not (func.attr in REBUILDING_METHODS or _own_rebuild(call, ctx)):
            continue
        path = dotted(func.value)
        if path is None:
            continue
        scope = ctx.scope_of(call)
        assigns = ctx.in_scope(scope, (ast.Assign,))
        later = [c for c in ctx.in_scope(scope, (ast.Call,)) if c.lineno > call.lineno]
        if any(_extends(c, ctx) for c in later):
            continue
        for assign in assigns:
            target = dotted(assign.targets[0]) if len(assign.targets) == 1 else None
            if assign.lineno < call.lineno and target and _built_on(assign.value, path, ctx) \
                    and _used_after(target, call, scope, ctx):
                found.append((assign, call, path))
    return found


def _own_rebuild(call: ast.Call, ctx: ModuleContext) -> bool:
    """A method of this file's model class that sets a layer with weights on self."""
    built = ctx.constructed(call.func.value) if ctx.classes else None
    cls = ctx.classes.get(built) if built else None
    method = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == call.func.attr), None) \
        if cls is not None else None
    if method is None or method.name == "__init__":
        return False
    return any(isinstance(a.value, ast.Call) and has_parameters(a.value, ctx) and any(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" for t in a.targets)
        for a in ctx.within(ast.Assign, method))


def _built_on(value: ast.AST, path: str, ctx: ModuleContext) -> bool:
    """An optimiser built from the model's parameters, or by a builder named for optimisers handed the model."""
    if not isinstance(value, ast.Call):
        return False
    name = ctx.call_name(value) or callee(value.func)
    if is_optimizer_name(name):
        sources = covered(params_argument(value), ctx)
        return bool(sources) and any(within(path, c) or within(c, path) for c, _ in sources)
    named = words(name.rsplit(".", 1)[-1])
    return bool(named & OPTIMIZER_WORDS and named & BUILDER_WORDS) and "sched" not in name.lower() and any(
        dotted(a) == path for a in [*value.args, *(k.value for k in value.keywords)])


def _extends(call: ast.Call, ctx: ModuleContext) -> bool:
    """Another optimiser or a builder of one, or add_param_group: the new layer may join it."""
    name = ctx.call_name(call) or callee(call.func)
    named = words(name.rsplit(".", 1)[-1])
    return is_optimizer_name(name) or ctx.method_name(call) == "add_param_group" or bool(named & OPTIMIZER_WORDS)


def _used_after(target: str, call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The optimiser is read after the rebuild (stepped, handed to a training function or a scheduler)."""
    kind = ast.Name if "." not in target else ast.Attribute
    return any(dotted(ref) == target and isinstance(ref.ctx, ast.Load) and ref.lineno > call.lineno
               for ref in ctx.in_scope(scope, (kind,)))
