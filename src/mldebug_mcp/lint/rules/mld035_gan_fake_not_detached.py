import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.gan_fake import (
    discriminator_side,
    generator_frozen,
    generator_steps_on_it,
    live_fakes,
)
from ..helpers.gan_forward_fake import forward_discriminator_fakes
from ..helpers.gan_updates import DISCRIMINATOR_WORDS, GENERATOR_WORDS, words
from ..helpers.graph import callee, module_index, other_framework
from ..helpers.loops import is_any_backward
from ..rule import Hit, Rule


class GanFakeNotDetached(Rule):
    """What it does: in a GAN, flags the generator's output handed undetached to the discriminator in the
    discriminator's loss (`errD = bce(netD(fake), zeros)` with `fake = netG(z)`), when after that backward
    the generator's optimiser steps with nothing clearing the generator's gradients in between: no
    `opt_g.zero_grad()` / `netG.zero_grad()` (or a zero_grad we cannot place, or a helper that says it
    clears gradients) before the generator's own backward and step. The networks are told by their names
    (`netG`, `generator`, `G` / `netD`, `discriminator`, `critic`), the discriminator's loss by its name
    (`errD`, `d_loss`, `loss_fake`), its step function's (`backward_D`), or a "fake" label as its target.
    `fake.detach()`, `with torch.no_grad(): fake = netG(z)`, `requires_grad_(False)` on the generator and a
    generator zeroed before its own backward stay quiet. In a file with no backward, also a model's forward
    that computes the discriminator's loss (`discr_loss = hinge(self.discr(fake), ...)`) from its live
    reconstruction, for another file's trainer to back-propagate.

    Why is this bad: the discriminator's backward also fills the generator's .grad with the gradient of
    the discriminator's loss, the loss the generator should be pushing the other way. When nothing clears
    it, the generator's step applies that gradient together with its own: the generator partly learns to
    make its fakes easier to spot. Training runs and the losses look like a GAN's. Where the generator is
    cleared before its own backward the undetached output only wastes a backward through the generator
    (and needs retain_graph=True), which is not flagged.
    """

    code = "MLD035"
    name = "gan-fake-not-detached"
    category = "autograd"
    severity = "error"
    message = ("the generator's output reaches the discriminator's loss undetached, and the generator's optimiser "
               "steps afterwards with no zero_grad() between: the discriminator's loss trains the generator too "
               "(detach it here)")
    why = "The discriminator's backward writes its gradient into the generator's .grad, which the generator's step applies."
    fix = "Pass fake.detach() to the discriminator in its update (or zero the generator's gradients before its own backward)."
    evidence = "pytorch-docs"
    node_types = (ast.Call, ast.Assign)
    call_names = frozenset({"backward", "manual_backward"})
    requires_text = ("backward", "fake", "recon", "generated")  # a backward, or a model's forward scoring fakes for another file's trainer
    BAD = (
        "def train(netG, netD, opt_g, opt_d, loader, bce, noise, ones, zeros):\n"
        "    for real in loader:\n"
        "        opt_g.zero_grad()\n"
        "        opt_d.zero_grad()\n"
        "        fake = netG(noise())\n"
        "        errD = bce(netD(real), ones) + bce(netD(fake), zeros)\n"
        "        errD.backward(retain_graph=True)\n"
        "        opt_d.step()\n"
        "        errG = bce(netD(fake), ones)\n"
        "        errG.backward()\n"
        "        opt_g.step()\n"
    )
    GOOD = (
        "def train(netG, netD, opt_g, opt_d, loader, bce, noise, ones, zeros):\n"
        "    for real in loader:\n"
        "        opt_g.zero_grad()\n"
        "        opt_d.zero_grad()\n"
        "        fake = netG(noise())\n"
        "        errD = bce(netD(real), ones) + bce(netD(fake.detach()), zeros)\n"
        "        errD.backward()\n"
        "        opt_d.step()\n"
        "        errG = bce(netD(fake), ones)\n"
        "        errG.backward()\n"
        "        opt_g.step()\n"
    )

    FORWARD = ("the discriminator's loss scores this sample, still attached to the model that made it: the loss "
               "this forward returns back-propagates into the generator; pass it detached (`.detach()`)")

    def applies(self, ctx: ModuleContext) -> bool:
        if not ctx.has_text("backward"):  # a model's forward returning the discriminator's loss: one network named
            return ctx.memo(("mld035.discr",), lambda: _names_a_discriminator(ctx))
        return ctx.memo(("mld035.gan",), lambda: _names_both_networks(ctx))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.Assign):
            if not ctx.has_text("backward") and not other_framework(ctx):  # applies() asked a discriminator only
                for argument in forward_discriminator_fakes(node, ctx):
                    yield Hit(argument, self.FORWARD)
            return
        if not is_any_backward(node) or other_framework(ctx):
            return
        loss = node.func.value
        if node.func.attr == "manual_backward" or any(
                w in callee(loss).lower() for w in ("accelerator", "fabric", "engine")):
            loss = node.args[0] if node.args else None
        elif isinstance(loss, ast.Call) and ctx.method_name(loss) == "scale" and loss.args:
            loss = loss.args[0]  # scaler.scale(errD).backward()
        if loss is None:
            return
        fakes = live_fakes(loss, ctx)
        if not fakes or not discriminator_side(loss, node, ctx):
            return
        if generator_frozen(node, ctx) or not generator_steps_on_it(node, ctx):
            return
        for argument, _ in fakes:
            yield Hit(argument)


def _names_a_discriminator(ctx: ModuleContext) -> bool:
    return any(words(name) & DISCRIMINATOR_WORDS for name in module_index(ctx)["calls"])


def _names_both_networks(ctx: ModuleContext) -> bool:
    """Some call of a network named for the generator and one named for the discriminator."""
    named = [words(name) for name in module_index(ctx)["calls"]]
    return any(w & GENERATOR_WORDS for w in named) and any(w & DISCRIMINATOR_WORDS for w in named)
