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
from .gan_fake import from_generator, network_call
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
    found: list[ast.AST] = []
    pending, seen = [assign.value], set()
    for _ in range(3):
        current, pending = pending, []
        for expr in current:
            for node in ast.walk(expr):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
                    seen.add(node.id)
                    value = latest_value(node, ctx)
                    if value is not None:
                        pending.append(value)
                if network_call(node, DISCRIMINATOR_WORDS, ctx):
                    found += [a for a in node.args if _live_fake(a, ctx)]
    return found


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
