"""Which network a GAN's backward updates, told by the names code gives its losses and step functions.

`G_loss`, `errG`, `loss_gen`, `backward_G`, `train_generator` are the generator's update; `errD`, `d_loss`,
`critic_loss` the discriminator's. The generator's update must not detach its output on the way into the
discriminator (no gradient reaches the generator); the discriminator's update must detach it, or the
generator's gradients must be cleared before its own backward (else the discriminator's loss trains it).
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .graph import callee, latest_value
from .loops import calls_in_order, is_backward, is_optimizer_step, is_zero_grad

GENERATOR_WORDS = {"g", "gen", "generator"}
DISCRIMINATOR_WORDS = {"d", "disc", "discriminator", "critic", "dis"}
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def words(name: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)}


def _spelled(expr: ast.AST) -> str:
    return expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""


def generator_update(loss: ast.AST, backward: ast.Call, ctx: ModuleContext) -> bool:
    """The loss is named for the generator, or the step function is and the loss is not named for the
    discriminator."""
    named = words(_spelled(loss))
    if named & DISCRIMINATOR_WORDS:
        return False
    if named & GENERATOR_WORDS:
        return True
    function = ctx.enclosing(backward, FUNCTIONS)
    where = words(function.name) if function is not None else set()
    return bool(where & GENERATOR_WORDS) and not where & DISCRIMINATOR_WORDS


def discriminator_update(loss: ast.AST) -> bool:
    return bool(words(_spelled(loss)) & DISCRIMINATOR_WORDS)


def generator_call(expr: ast.AST, ctx: ModuleContext) -> bool:
    """`netG(z)`, `self.generator(z)`, `G(z)`: a call of a network named for the generator."""
    return isinstance(expr, ast.Call) and ctx.call_name(expr) is None and bool(words(callee(expr.func)) & GENERATOR_WORDS)


def live_generator_inputs(loss: ast.AST, ctx: ModuleContext, depth: int = 3) -> list[ast.AST]:
    """Generator outputs handed undetached to another network on the way to the loss `loss`."""
    found: list[ast.AST] = []
    pending, seen = [loss], set()
    while pending and depth >= 0:
        depth -= 1
        current, pending = pending, []
        for expr in current:
            for node in ast.walk(expr):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
                    seen.add(node.id)
                    value = latest_value(node, ctx)
                    if value is not None:
                        pending.append(value)
                if not isinstance(node, ast.Call) or generator_call(node, ctx) or ctx.call_name(node):
                    continue
                for arg in node.args:
                    value = latest_value(arg, ctx) if isinstance(arg, ast.Name) else arg
                    if generator_call(value, ctx):
                        found.append(arg)
    return found


def generator_not_cleared_after(backward: ast.Call, ctx: ModuleContext) -> bool:
    """After this backward, the generator's own backward and step follow in the same function with no
    zero_grad() between that may clear the generator (one named for it, or one we cannot place)."""
    function = ctx.enclosing(backward, FUNCTIONS)
    if function is None:
        return False
    calls = calls_in_order(function.body)
    later = calls[calls.index(backward) + 1:] if backward in calls else []
    for call in later:
        if is_zero_grad(call):
            named = words(_spelled(call.func.value))
            if named & GENERATOR_WORDS or not named & DISCRIMINATOR_WORDS:
                return False
        if is_backward(call) and _generator_backward(call, ctx):
            return any(is_optimizer_step(c, ctx) for c in later if c.lineno >= call.lineno)
    return False


def _generator_backward(call: ast.Call, ctx: ModuleContext) -> bool:
    loss = call.args[0] if ctx.method_name(call) == "manual_backward" and call.args else call.func.value
    return generator_update(loss, call, ctx)
