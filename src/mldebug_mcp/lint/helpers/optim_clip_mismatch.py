"""An optimiser built on other parameters than the ones its update clips (MLD015).

`clip_grad_norm_(model.decoder_params, 5)` right before `trainer_G.step()` names the parameters this update
is meant to move; when trainer_G was built on `model.encoder_params` and another optimiser of the same scope
holds the decoder's, the two constructions got each other's parameter sets: each step moves the part the
other loss trained. Quiet when the clipped parameters are (part of) the stepped optimiser's, when no other
optimiser holds them, or when either parameter expression cannot be read.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import callee
from .optim_params import covered, dotted, is_optimizer_name, params_argument, within

CLIPS = {"clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"}


def clipped_elsewhere(opt: ast.Call, ctx: ModuleContext) -> tuple[ast.Call, ast.Call, ast.Call] | None:
    """(the clip, the step, the other optimiser's construction) when the update that steps `opt` clips
    parameters that another optimiser of the scope holds and `opt` does not."""
    if not ctx.has_text("clip_grad"):
        return None
    name = _assigned_name(opt, ctx)
    own = _keys(params_argument(opt), ctx)
    if name is None or not own:
        return None
    scope = ctx.scope_of(opt)
    calls = sorted(ctx.in_scope(scope, (ast.Call,)), key=lambda c: (c.lineno, c.col_offset))
    built = {n: c for c in calls if is_optimizer_name(ctx.call_name(c)) and (n := _assigned_name(c, ctx))}
    last_clip = None
    for call in calls:
        method = callee(call.func)
        if method in CLIPS and call.args:
            last_clip = call
        elif method == "step" and isinstance(call.func, ast.Attribute):
            stepped, clip, last_clip = dotted(call.func.value), last_clip, None  # a clip belongs to the next step
            if stepped != name or clip is None:
                continue
            clipped = _keys(clip.args[0], ctx)
            if not clipped or any(_related(c, o) for c in clipped for o in own):
                continue
            for other in built.values():
                theirs = _keys(params_argument(other), ctx) if other is not opt else None
                if theirs and all(any(_related(c, t) for t in theirs) for c in clipped):
                    return clip, call, other
    return None


def _assigned_name(call: ast.Call, ctx: ModuleContext) -> str | None:
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        return dotted(parent.targets[0])
    return None


def _keys(expr: ast.AST | None, ctx: ModuleContext) -> list[str] | None:
    """The modules (or parameter attributes, `model.encoder_params`) a parameter expression names."""
    if expr is None:
        return None
    found = covered(expr, ctx)
    if found:
        return [path for path, _ in found]
    path = dotted(expr) if isinstance(expr, ast.Attribute) else None
    return [path] if path else None


def _related(a: str, b: str) -> bool:
    return within(a, b) or within(b, a)
