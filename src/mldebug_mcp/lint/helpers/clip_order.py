"""Where a gradient clip runs in its iteration, against the backward and the optimiser step (MLD074), and against
a GradScaler's scaled backward and its unscale_ (MLD075)."""

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
    calls, position = _around(clip, ctx)
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


def _around(clip: ast.Call, ctx: ModuleContext) -> tuple[list[ast.Call], int | None]:
    """The calls of the clip's iteration (the innermost loop around it, else its function) in execution order, and
    the clip's place among them (None outside any)."""
    region = _iteration(clip, ctx)
    calls = calls_in_order(region.body) if region is not None else []
    return calls, next((i for i, c in enumerate(calls) if c is clip), None)


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
    """a and b lie in the two branches of one `if`, or of two `if`s with the same test (`if args.amp:` around the
    scaled backward, and again around the step): never both run in an iteration, as long as the test's value holds."""
    theirs = _branches(b, ctx)
    if any(branch != theirs[test] for test, branch in _branches(a, ctx).items() if test in theirs):
        return True
    tests = {ast.dump(test.test): branch for test, branch in theirs.items()}
    return any(tests.get(ast.dump(test.test), branch) != branch for test, branch in _branches(a, ctx).items())


def is_torch_clip(call: ast.Call, ctx: ModuleContext) -> bool:
    """torch.nn.utils' own clip, however imported; not an accelerator's or a framework's method of that name, which
    unscale what their own scaler scaled before clipping."""
    name = ctx.call_name(call)
    return name is not None and name.startswith("torch.") and name.rsplit(".", 1)[-1] in CLIPS


def scaled_backward_before(clip: ast.Call, ctx: ModuleContext) -> ast.Call | None:
    """The `scaler.scale(loss).backward()` that may have run last before `clip` in its iteration (the innermost loop
    around it, else its function) with no `scaler.unscale_(...)` between them: a plain backward in the other branch
    of an `if` (`if amp: scaler.scale(loss).backward() else: loss.backward()`) is an alternative to it, not a later
    backward. None when an unscale_ or a plain backward comes first, or when the scaler is built with
    `enabled=False`, or when a step comes between them."""
    calls, position = _around(clip, ctx)
    if position is None:
        return None
    alternatives: list[ast.Call] = []  # plain backwards met so far, each in another branch than the others
    for call in reversed(calls[:position]):
        if _exclusive(call, clip, ctx):
            continue
        if ctx.method_name(call) == "unscale_" or _is_step(call, ctx):
            return None  # unscaled first; or a clip after the step, which MLD074 reports
        if not is_any_backward(call):
            continue
        if not all(_exclusive(call, other, ctx) for other in alternatives):
            return None  # a backward that runs after this one
        scaler = _scaler_of(call, ctx)
        if scaler is not None and not _disabled(scaler, ctx):
            return call
        alternatives.append(call)
    return None


def _scaler_of(backward: ast.Call, ctx: ModuleContext) -> ast.expr | None:
    """S when the backward runs on `S.scale(x)` (directly, or through a name bound to it) and S is a GradScaler
    (built from one, or named like one)."""
    receiver = backward.func.value if isinstance(backward.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name):
        receiver = ctx.resolve(receiver)
    if not (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)
            and receiver.func.attr == "scale" and len(receiver.args) == 1):
        return None
    scaler = receiver.func.value
    built = ctx.constructed(scaler) or ""
    return scaler if built.endswith("GradScaler") or "scaler" in callee(scaler).lower() else None


def _disabled(scaler: ast.expr, ctx: ModuleContext) -> bool:
    """`GradScaler(enabled=False)`: scale() then returns the loss as it is."""
    value = ctx.resolve(scaler)
    return isinstance(value, ast.Call) and any(
        k.arg == "enabled" and isinstance(k.value, ast.Constant) and k.value.value is False for k in value.keywords)
