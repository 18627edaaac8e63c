"""A discriminator's optimiser zeroed only after its own step, in a step that first updates the generator.

`g_loss.backward(); g_opt.step(); g_opt.zero_grad()` and then `d_loss.backward(); d_opt.step();
d_opt.zero_grad()`: the generator's loss is computed through the discriminator, so its backward also leaves
gradients in the discriminator's parameters, and nothing clears them before the discriminator's own backward:
its step applies them on top of its loss. The zero_grad belongs before the discriminator's backward. Quiet when
anything else is zeroed before that backward (the discriminator module, set_to_none on it), when the
function toggles requires_grad (the discriminator frozen during the generator's update), or when the
discriminator is zeroed before its step. The discriminator's optimiser is told by its name (gan_updates).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import DISCRIMINATOR_WORDS, words
from .loops import calls_in_order, is_any_backward, is_zero_grad
from .optim_params import dotted
from .optim_steps import local_callee
from .optim_values import optimizer_step
from .optim_zeroing import stepped_optimizer
from .script_scope import function_or_module, trains


def stale_discriminator_window(function: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, str] | None:
    """(the statement that starts the discriminator's backward, its optimiser's name) when it is zeroed only
    after its step while a generator step with its own backward comes first."""
    if not ctx.has_text("zero_grad"):
        return None
    training = trains(function, ctx)
    if not training and not ctx.backward_scopes:
        return None  # no backward in the module's functions or loops, nor at a script's top level
    calls = [c for c in calls_in_order(function.body) if function_or_module(c, ctx) is function]
    if not training and not any(_backs(c, ctx) for c in calls):
        return None  # no backward in it (nor in a nested loop, nor in a helper it calls)
    named = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "step"]
    if len(named) < 2:
        return None  # fewer than two .step() calls: no generator update before a discriminator one
    steps = [(c, dotted(opt)) for c in named if optimizer_step(c, ctx) and (opt := stepped_optimizer(c)) is not None]
    for index, (d_step, d_name) in enumerate(steps):
        if not d_name or not words(d_name.rsplit(".", 1)[-1]) & DISCRIMINATOR_WORDS:
            continue
        first = next(((c, n) for c, n in steps[:index] if n and n != d_name), None)
        if first is None:
            continue
        g_step, g_name = first
        if not any(_backs(c, ctx) and _before(c, g_step) for c in calls):
            continue
        d_backward = next((c for c in calls if _backs(c, ctx) and _before(g_step, c) and _before(c, d_step)), None)
        if d_backward is None:
            continue
        zeroes = [c for c in calls if is_zero_grad(c) and isinstance(c.func, ast.Attribute)]
        d_zeroes = [c for c in zeroes if dotted(c.func.value) == d_name]
        if not d_zeroes or any(not _before(d_step, z) for z in d_zeroes):
            continue  # never zeroed (another finding), or zeroed before its step
        if any(dotted(z.func.value) not in (g_name, d_name) and _before(z, d_backward) for z in zeroes):
            continue  # the discriminator's module (or all) zeroed before its backward
        if ctx.has_text("requires_grad") and "requires_grad" in ast.unparse(_step_loop(d_step, function, ctx)):
            return None  # the discriminator may be frozen during the generator's update
        return _after_update_through(calls, g_name, d_step, function, ctx) or _opening(
            d_backward, g_step, function, ctx), d_name
    return None


def _backs(call: ast.Call, ctx: ModuleContext) -> bool:
    """A backward, or a call of a helper of this file that runs one (the generator's micro-batch loop moved into
    `def generator_pass(...)`, issue 17)."""
    if is_any_backward(call):
        return True
    helper = local_callee(call, ctx)
    return helper is not None and helper in ctx.backward_scopes


def _after_update_through(calls: list[ast.Call], g_name: str, d_step: ast.Call, function: ast.AST,
                          ctx: ModuleContext) -> ast.AST | None:
    """When several generator updates (a cycle loss, an adversarial loss, an identity loss) run before the
    discriminator's, the zero_grad belongs right after the update whose loss is computed through the
    discriminator: at that update's last `g_opt.zero_grad()` / `g_opt.step()`, when another generator backward
    follows it."""
    g_steps = [c for c in calls if _before(c, d_step) and isinstance(c.func, ast.Attribute) and (
        c.func.attr == "step" and dotted(c.func.value) == g_name)]
    if not g_steps:
        return None
    # the generator's backwards: those before its last step (the discriminator's own loss runs through it too)
    backwards = [c for c in calls if _backs(c, ctx) and _before(c, g_steps[-1])]
    through = [b for b in backwards if _through_discriminator(b, function, ctx)]
    if not through or through[-1] is backwards[-1]:
        return None
    after, next_backward = through[-1], backwards[backwards.index(through[-1]) + 1]
    closing = [c for c in calls if _before(after, c) and _before(c, next_backward) and isinstance(
        c.func, ast.Attribute) and c.func.attr in ("step", "zero_grad") and dotted(c.func.value) == g_name]
    if not closing:
        return None
    return next((a for a in ctx.ancestors(closing[-1]) if isinstance(a, ast.stmt)), closing[-1])


def _through_discriminator(backward: ast.Call, function: ast.AST, ctx: ModuleContext) -> bool:
    """The loss handed to this backward is computed (here or one assignment up) by calling a module named as
    a discriminator (`loss_gan = net_disc_a(fake_b).mean()`, `errG = criterion(netD(fake), real)`)."""
    values = [*backward.args, *([backward.func.value] if isinstance(backward.func, ast.Attribute) else [])]
    names = {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name)}
    sources = [*values, *(a.value for a in ast.walk(function) if isinstance(a, ast.Assign | ast.AugAssign) and any(
        isinstance(t, ast.Name) and t.id in names for t in (a.targets if isinstance(a, ast.Assign) else [a.target]))
        and _before(a, backward))]
    return any(isinstance(c, ast.Call) and words((dotted(c.func) or "").rsplit(".", 1)[-1]) & DISCRIMINATOR_WORDS
               for v in sources for c in ast.walk(v))


def _step_loop(step: ast.Call, function: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The innermost loop of `function` around the discriminator's step, else the function: a requires_grad_()
    there may freeze the discriminator for the generator's update; one in the set-up before the loop (a frozen
    text encoder, a feature extractor) does not."""
    for ancestor in ctx.ancestors(step):
        if ancestor is function:
            break
        if isinstance(ancestor, ast.For | ast.AsyncFor | ast.While):
            return ancestor
    return function


def _before(a: ast.AST, b: ast.AST) -> bool:
    return (a.lineno, a.col_offset) < (b.lineno, b.col_offset)


def _opening(backward: ast.Call, g_step: ast.Call, function: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The outermost statement around the discriminator's backward that starts after the generator's step (a
    loop over its micro-batches): where its zero_grad goes."""
    found: ast.AST = backward
    for ancestor in ctx.ancestors(backward):
        if ancestor is function:
            break
        if isinstance(ancestor, ast.stmt) and _before(g_step, ancestor):
            found = ancestor
    if isinstance(found, ast.If) and found.body and isinstance(found.body[0], ast.For | ast.AsyncFor | ast.While):
        return found.body[0]  # `if exists(discr): for _ in range(k): ...`: the loop opens the window
    return found
