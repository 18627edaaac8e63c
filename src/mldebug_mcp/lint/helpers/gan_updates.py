"""Which network a GAN's backward updates, told by the names code gives its losses and step functions.

`G_loss`, `errG`, `loss_gen`, `backward_G`, `train_generator` are the generator's update; `errD`, `d_loss`,
`critic_loss` the discriminator's. The generator's update must not detach its output on the way into the
discriminator (no gradient reaches the generator); the discriminator's update must detach it, or the
generator's gradients must be cleared before its own backward (else the discriminator's loss trains it;
gan_fake.py).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from ..context import ModuleContext
from .graph import is_loss_call, latest_value

GENERATOR_WORDS = {"g", "gen", "generator"}
DISCRIMINATOR_WORDS = {"d", "disc", "discr", "discriminator", "critic", "dis"}
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def words(name: str) -> set[str]:
    return set(_words(name))  # a new set: callers may change theirs


@lru_cache(maxsize=65_536)  # asked of every callee name of a file (MLD035's applies), and names repeat: pure
def _words(name: str) -> frozenset[str]:
    return frozenset(w.lower() for w in WORD.findall(name))


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
    if where & (GENERATOR_WORDS | DISCRIMINATOR_WORDS):
        return bool(where & GENERATOR_WORDS) and not where & DISCRIMINATOR_WORDS
    # nothing named: the values tell. The generator's loss scores a verdict against "real" labels (`mse(D(fake),
    # ones)`), never against "fake" ones (zeros) as the discriminator's does; other terms (an L1 to a target) may
    # be added
    labels = _label_targets(loss, ctx, [12])
    return "ones" in labels and "zeros" not in labels


ONES = {"torch.ones", "torch.ones_like"}
ZEROS = {"torch.zeros", "torch.zeros_like"}


def _label_targets(expr: ast.AST, ctx: ModuleContext, budget: list[int]) -> set[str]:
    """'ones' / 'zeros' for each loss call on the way to `expr` whose target is a tensor of ones or zeros."""
    budget[0] -= 1
    if budget[0] < 0 or expr is None:
        return set()
    if isinstance(expr, ast.Name):
        return _label_targets(latest_value(expr, ctx), ctx, budget)
    if isinstance(expr, ast.BinOp):
        return _label_targets(expr.left, ctx, budget) | _label_targets(expr.right, ctx, budget)
    if not isinstance(expr, ast.Call):
        return set()
    if is_loss_call(expr, ctx):
        target = expr.args[1] if len(expr.args) > 1 else next((k.value for k in expr.keywords if k.arg == "target"), None)
        if isinstance(target, ast.Name):
            target = latest_value(target, ctx)
        name = ctx.call_name(target) if isinstance(target, ast.Call) else None
        return {"ones"} if name in ONES else {"zeros"} if name in ZEROS else {"other"}
    if isinstance(expr.func, ast.Attribute) and expr.func.attr in {"mean", "sum"}:
        return _label_targets(expr.func.value, ctx, budget)
    return set()


def discriminator_update(loss: ast.AST) -> bool:
    return bool(words(_spelled(loss)) & DISCRIMINATOR_WORDS)
