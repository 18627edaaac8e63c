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

GENERATOR_WORDS = {"g", "gen", "generator"}
DISCRIMINATOR_WORDS = {"d", "disc", "discriminator", "critic", "dis"}
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
    return bool(where & GENERATOR_WORDS) and not where & DISCRIMINATOR_WORDS


def discriminator_update(loss: ast.AST) -> bool:
    return bool(words(_spelled(loss)) & DISCRIMINATOR_WORDS)
