"""An optimiser stepped twice in each iteration of a loop but cleared only before one of the steps (MLD010).

A VAE-GAN's generator takes a reconstruction step and then an adversarial step: `netG.zero_grad()` opens the
adversarial update, nothing opens the reconstruction one, so the reconstruction step applies its own gradients
plus those the previous iteration's adversarial backward left. Each step of the optimiser needs a clearing since
the step before it (the loop's last step of it, for the first). Read in the loop's own body, where the steps and
the clearings run every iteration.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .loops import calls_in_order, is_any_backward, is_zero_grad
from .optim_params import dotted
from .optim_steps import top_statement, unconditional_in
from .optim_values import optimizer_step
from .optim_zeroing import cleared, stepped_optimizer


def stale_second_window(loop: ast.AST, ctx: ModuleContext) -> tuple[ast.stmt, str] | None:
    """(the statement where the missing zero_grad goes, the optimiser's name) for an optimiser that steps at
    least twice in the loop's body, every iteration, with a backward and no clearing of it since its step
    before."""
    calls = [c for c in calls_in_order(loop.body) if unconditional_in(c, loop, ctx)]
    steps = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "step" and optimizer_step(c, ctx)]
    if len(steps) < 2:
        return None
    zeros = [c for c in calls if is_zero_grad(c)]
    if not zeros:
        return None  # never cleared in the loop: another finding
    by_name: dict[str, tuple[ast.AST, list[ast.Call]]] = {}
    for step in steps:
        optimizer = stepped_optimizer(step)
        name = dotted(optimizer) if optimizer is not None else None
        if name:
            by_name.setdefault(name, (optimizer, []))[1].append(step)
    for name, (optimizer, own) in by_name.items():
        if len(own) < 2 or not any(cleared([z], optimizer, ctx) for z in zeros):
            continue  # one step, or never cleared here (another finding)
        for index, step in enumerate(own):
            window = _window(calls, own[index - 1], step)
            if any(is_any_backward(c) for c in window) and not any(
                    is_zero_grad(c) and cleared([c], optimizer, ctx) for c in window):
                return _anchor(window, step, steps, loop, ctx), name
    return None


def _window(calls: list[ast.Call], previous: ast.Call, step: ast.Call) -> list[ast.Call]:
    """The calls run after `previous` and before `step` (around the loop's end when `previous` comes later)."""
    start, end = calls.index(previous), calls.index(step)
    return calls[start + 1:end] if start < end else calls[start + 1:] + calls[:end]


def _anchor(window: list[ast.Call], step: ast.Call, steps: list[ast.Call], loop: ast.AST,
            ctx: ModuleContext) -> ast.stmt:
    """Where the zero_grad goes: the first statement after the last step of another optimiser before this
    step's own backward (the discriminator's update), else the loop's first statement."""
    before = window[:window.index(step)] if step in window else window
    own_backward = max((i for i, c in enumerate(before) if is_any_backward(c)), default=None)
    cut = before[:own_backward] if own_backward is not None else before
    other = [c for c in cut if c in steps]
    if other:
        stmt = top_statement(other[-1], loop.body, ctx)
        if stmt is not None and loop.body.index(stmt) + 1 < len(loop.body):
            return loop.body[loop.body.index(stmt) + 1]
    return loop.body[0]
