"""A discriminator loss a model's own forward computes from its live reconstruction.

`fake = pick_frame(recon); discr_loss = hinge(self.discr(fake), self.discr(real))`, returned for the trainer's
discriminator update (`model(x, return_discr_loss=True)`): the reconstruction is still attached to the
encoder and decoder, so the discriminator's loss back-propagates into them and the generator's next step
applies those gradients (unless its optimiser is zeroed first). The fix detaches it: `self.discr(fake.detach())`.
The sample is told by its name (`fake`, `recon`, `generated`, `fake_*`) or by gan_fake's generator trace.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_fake import discriminator_calls, from_generator
from .gan_updates import DISCRIMINATOR_WORDS, GENERATOR_WORDS, words
from .graph import in_no_grad, latest_value

FAKE_WORDS = {"fake", "recon", "reconstruction", "reconstructed", "generated"}
CUTS = ("detach", ".data", "no_grad")


def forward_discriminator_fakes(assign: ast.Assign, ctx: ModuleContext) -> list[ast.AST]:
    """The live fake samples a discriminator scores on the way to `discr_loss = ...`, in a file that trains
    nothing itself (the trainer of another file runs the backward)."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
        return []
    named = words(assign.targets[0].id)
    if "loss" not in named or not named & DISCRIMINATOR_WORDS or named & GENERATOR_WORDS:
        return []
    return [a for call in discriminator_calls(assign.value, ctx, 3, follow_self=False)
            for a in call.args if _live_fake(a, ctx)]


def _live_fake(arg: ast.AST, ctx: ModuleContext) -> bool:
    if not isinstance(arg, ast.Name) or not words(arg.id) & FAKE_WORDS:
        return False
    if from_generator(arg, ctx, [12]):
        return True
    value = latest_value(arg, ctx)
    chain, budget = value, 4
    while chain is not None and budget > 0:  # the names it is made of, a few steps back: none detached
        budget -= 1
        text = ast.unparse(chain)
        if any(cut in text for cut in CUTS) or in_no_grad(chain, ctx):
            return False
        inner = [n for n in ast.walk(chain) if isinstance(n, ast.Name) and words(n.id) & FAKE_WORDS]
        chain = latest_value(inner[0], ctx) if inner else None
    return value is not None
