"""Where a gradient clip runs in its iteration, against the backward and the optimiser step (MLD074)."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import callee
from .loops import LOOPS, calls_in_order, is_any_backward, is_optimizer_step
from .optim_params import OPTIMISER_FAMILY

CLIPS = frozenset({"clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grad_value"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_clip(call: ast.Call, ctx: ModuleContext) -> bool:
    """torch.nn.utils' clip (however imported), or an accelerator's/FSDP model's method of that name; a local
    function of that name is unknown."""
    name = ctx.call_name(call)
    if name is not None:
        return "." in name and name.rsplit(".", 1)[-1] in CLIPS
    return isinstance(call.func, ast.Attribute) and call.func.attr in CLIPS


def _is_step(call: ast.Call, ctx: ModuleContext) -> bool:
    if is_optimizer_step(call, ctx):
        return True
    # `adam.step()`: a receiver named after an optimiser family, read from a holder the file cannot follow
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step") or call.args:
        return False
    word = callee(call.func.value)
    return OPTIMISER_FAMILY.fullmatch(word.capitalize()) is not None or word.upper() in {"SGD", "LAMB", "LARS"}


def clip_after_step(clip: ast.Call, ctx: ModuleContext) -> ast.Call | None:
    """The optimiser step that precedes `clip` in its iteration (the innermost loop around it, else its function)
    with no backward between them, when no backward and no step follows the clip there; else None."""
    region = _iteration(clip, ctx)
    if region is None:
        return None
    calls = calls_in_order(region.body)
    position = next((i for i, c in enumerate(calls) if c is clip), None)
    if position is None:
        return None
    if any(is_any_backward(c) or _is_step(c, ctx) for c in calls[position + 1:]):
        return None  # a later backward and step: the clip may be meant for them
    step = None
    for call in reversed(calls[:position]):
        if is_any_backward(call):
            break
        if _is_step(call, ctx) and not _exclusive(call, clip, ctx) and not _apart(call, clip, ctx):
            step = call
            break
    return step


def _apart(step: ast.Call, clip: ast.Call, ctx: ModuleContext) -> bool:
    """Each runs under an `if` of its own (`if env == "ddp": opt.step()`, then `if env == "plain": clip(...)`): the
    file does not tell whether both run in one iteration. A clip outside every `if` of the step's runs after it."""
    steps, clips = _branches(step, ctx), _branches(clip, ctx)
    return any(test not in clips for test in steps) and any(test not in steps for test in clips)


def _iteration(node: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, LOOPS + FUNCTIONS):
            return ancestor
        if isinstance(ancestor, ast.Lambda | ast.ClassDef):
            return None
    return None


def _branches(node: ast.AST, ctx: ModuleContext) -> dict[ast.If, bool]:
    """For each `if` around `node`: whether node lies in its else branch."""
    found: dict[ast.If, bool] = {}
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.If) and child is not ancestor.test:
            found[ancestor] = any(child is s for s in ancestor.orelse)
        child = ancestor
    return found


def _exclusive(a: ast.AST, b: ast.AST, ctx: ModuleContext) -> bool:
    """a and b lie in the two branches of one `if`: never both run in an iteration."""
    theirs = _branches(b, ctx)
    return any(branch != theirs[test] for test, branch in _branches(a, ctx).items() if test in theirs)
