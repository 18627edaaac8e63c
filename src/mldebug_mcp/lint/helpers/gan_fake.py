"""The discriminator's update of a GAN fed the generator's live output, and whether the generator's step
then uses the gradients that update sends into the generator.

`netD(fake)` in the discriminator's loss, with `fake = netG(z)` not detached, back-propagates into the
generator's parameters. That only wastes compute when the generator's gradients are cleared before its own
backward (`opt_g.zero_grad()`, a helper that zeroes both, `netG.zero_grad()`), or when the generator does
not carry gradients then (`with torch.no_grad(): fake = netG(z)`, `requires_grad_(False)` on it). It is a
silent bug when the generator's optimiser steps afterwards with nothing clearing it in between: the
generator then also descends the discriminator's loss, against its own objective.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .gan_updates import DISCRIMINATOR_WORDS, GENERATOR_WORDS, generator_update, words
from .graph import GRAPH_CUTS as CUTS, callee, in_no_grad, latest_value
from .loops import is_backward, is_zero_grad
from .optim_steps import FUNCTIONS, _says_it_clears, call_sites, expanded_calls
from .optim_values import optimizer_step
from .script_scope import function_or_module

FAKE_TARGET_WORDS = {"fake", "zeros", "zero", "false"}  # a label that says "this sample is generated"
TRUE_TARGET_WORDS = {"real", "ones", "valid", "true"}


def _spelled(expr: ast.AST | None) -> str:
    while isinstance(expr, ast.Call):
        expr = expr.func
    return expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else ""


def _named(expr: ast.AST | None, vocabulary: set[str]) -> bool:
    return _names_one_side(words(_spelled(expr)), vocabulary)


def _names_one_side(found: set[str], vocabulary: set[str]) -> bool:
    """The words name this side (`vocabulary`) and not the other."""
    other = DISCRIMINATOR_WORDS if vocabulary is GENERATOR_WORDS else GENERATOR_WORDS
    return bool(found & vocabulary) and not found & other


def network_call(expr: ast.AST, vocabulary: set[str], ctx: ModuleContext) -> bool:
    """`netD(x)`, `self.discriminator(x)`, `D.forward(x)`: a call of a network named for one side."""
    if not isinstance(expr, ast.Call) or ctx.call_name(expr) is not None:
        return False
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    return _names_one_side(words(callee(func)), vocabulary)


def from_generator(expr: ast.AST, ctx: ModuleContext, budget: list[int]) -> bool:
    """Whether `expr` is the generator's output, still attached to its graph (through names, tensor
    methods, torch functions and arithmetic; not through .detach(), .data, or a no_grad block)."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        if value is None:
            return any(from_generator(a, ctx, budget) for a in _passed_for(expr, ctx))
        return not in_no_grad(value, ctx) and from_generator(value, ctx, budget)
    if isinstance(expr, ast.Attribute):
        if expr.attr == "data":
            return False
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            value = _self_value(expr, ctx)
            return value is not None and not in_no_grad(value, ctx) and from_generator(value, ctx, budget)
        return False
    if isinstance(expr, ast.Subscript | ast.Starred):
        return from_generator(expr.value, ctx, budget)
    if isinstance(expr, ast.BinOp):
        return from_generator(expr.left, ctx, budget) or from_generator(expr.right, ctx, budget)
    if isinstance(expr, ast.Tuple | ast.List):
        return any(from_generator(e, ctx, budget) for e in expr.elts)
    if not isinstance(expr, ast.Call):
        return False
    if network_call(expr, GENERATOR_WORDS, ctx):
        return True
    method, name = ctx.method_name(expr), ctx.call_name(expr) or ""
    if method in CUTS or name.startswith(("torch.tensor", "torch.as_tensor", "torch.from_numpy")):
        return False
    if name.startswith(("torch.", "F.")):
        return any(from_generator(a, ctx, budget) for a in expr.args)
    if name == "" and isinstance(expr.func, ast.Attribute) and not network_call(expr, DISCRIMINATOR_WORDS, ctx):
        return from_generator(expr.func.value, ctx, budget)  # fake.view(...), outputG.type(...).cuda()
    return False


def _passed_for(name: ast.Name, ctx: ModuleContext) -> list[ast.AST]:
    """What the calls of this module pass for a parameter of the enclosing function (`def
    update_discriminator(self, real, fake)` called as `self.update_discriminator(x, netG(z))`)."""
    function = ctx.enclosing(name, FUNCTIONS)
    if function is None:
        return []
    parameters = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    if name.id not in parameters:
        return []
    position = parameters.index(name.id)
    passed = []
    for site in call_sites(function, ctx):
        offset = 1 if parameters[:1] == ["self"] and isinstance(site.func, ast.Attribute) else 0
        keyword = next((k.value for k in site.keywords if k.arg == name.id), None)
        if keyword is not None:
            passed.append(keyword)
        elif 0 <= position - offset < len(site.args):
            passed.append(site.args[position - offset])
    return passed


def _self_value(attribute: ast.Attribute, ctx: ModuleContext) -> ast.expr | None:
    """The value last assigned to `self.x` earlier in the same method, else one another method of the class
    assigns (`self.fake_B = self.netG(self.real_A)` in forward(), read in backward_D())."""
    function = ctx.enclosing(attribute, FUNCTIONS)
    if function is None:
        return None
    found = [n.value for n in ctx.in_scope(function, (ast.Assign,)) if n.lineno < attribute.lineno
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) and n.targets[0].attr == attribute.attr
             and isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id == "self"]
    if found:
        return max(found, key=lambda v: v.lineno)
    elsewhere = [v for v in ctx.values_of(attribute) if ctx.enclosing(v, FUNCTIONS) is not function]
    return elsewhere[0] if len(elsewhere) == 1 else None


def live_fakes(loss: ast.AST, ctx: ModuleContext) -> list[tuple[ast.AST, ast.Call]]:
    """(argument, discriminator call): the generator's live output handed to a network named for the
    discriminator on the way to `loss` (its names followed back four assignments)."""
    return [(a, call) for call in discriminator_calls(loss, ctx, 5, follow_self=True)
            for a in call.args if from_generator(a, ctx, [12])]


def discriminator_calls(expr: ast.AST, ctx: ModuleContext, rounds: int, follow_self: bool) -> list[ast.Call]:
    """Calls of a network named for the discriminator in `expr` and in the values its names were last given,
    `rounds` walks in all: `expr`, then `rounds - 1` assignments back (and through `self.x` assignments when
    `follow_self`)."""
    found: list[ast.Call] = []
    pending, seen = [expr], set()
    for _ in range(rounds):
        if not pending:
            break
        current, pending = pending, []
        for value_expr in current:
            for node in ast.walk(value_expr):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
                    seen.add(node.id)
                    value = latest_value(node, ctx)
                    if value is not None:
                        pending.append(value)
                elif follow_self and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                        and node.value.id == "self":
                    value = _self_value(node, ctx) if ("self", node.attr) not in seen else None
                    seen.add(("self", node.attr))
                    if value is not None:
                        pending.append(value)
                if network_call(node, DISCRIMINATOR_WORDS, ctx):
                    found.append(node)
    return found


def discriminator_side(loss: ast.AST, backward: ast.Call, ctx: ModuleContext) -> bool:
    """The backward is the discriminator's update: its loss is named for the discriminator (or for fake
    samples), its step function is, or the loss scores the fake samples against a "fake" label."""
    named = words(_spelled(loss))
    if named & GENERATOR_WORDS and not named & DISCRIMINATOR_WORDS:
        return False
    if named & DISCRIMINATOR_WORDS or "fake" in named:
        return True
    function = ctx.enclosing(backward, FUNCTIONS)
    where = words(function.name) if function is not None else set()
    if where & GENERATOR_WORDS and not where & DISCRIMINATOR_WORDS:
        return False
    if where & DISCRIMINATOR_WORDS:
        return True
    return _fake_label(loss, ctx)


def _fake_label(loss: ast.AST, ctx: ModuleContext) -> bool:
    """`criterion(netD(fake), fake_label)`, `bce(pred, torch.zeros_like(pred))`: a target that says
    "generated", which only the discriminator's loss gives its fake samples."""
    value = latest_value(loss, ctx) if isinstance(loss, ast.Name) else loss
    for node in ast.walk(value) if value is not None else ():
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            said = _label_words(node.args[1], ctx)
            if said & FAKE_TARGET_WORDS and not said & TRUE_TARGET_WORDS:
                return True
    return False


def _label_words(target: ast.AST, ctx: ModuleContext) -> set[str]:
    if isinstance(target, ast.Constant) and target.value is False:
        return {"false"}
    name = ctx.call_name(target) if isinstance(target, ast.Call) else None
    if name:
        return words(name.rsplit(".", 1)[-1])
    return words(_spelled(target))


def generator_frozen(backward: ast.Call, ctx: ModuleContext) -> bool:
    """`set_requires_grad(netG, False)`, `netG.requires_grad_(False)`, a loop setting `p.requires_grad =
    False` over the generator's parameters, or Lightning's `self.toggle_optimizer(opt)`, before this
    backward in the same function, and not undone since (the last such switch before it decides)."""
    function = function_or_module(backward, ctx)  # a script's top-level loop is its own scope
    switches: list[tuple[tuple[int, int], bool]] = []  # (position, frozen)
    # a script's own statements: the bodies of its functions and classes do not run in order with it
    nodes = _script_nodes(ctx) if function is ctx.tree else ast.walk(function)
    for node in nodes:
        if getattr(node, "lineno", backward.lineno) >= backward.lineno:
            continue
        where = (node.lineno, node.col_offset)
        if isinstance(node, ast.Call) and "requires_grad" in _spelled(node):
            flags = [a.value for a in [*node.args, *[k.value for k in node.keywords]]
                     if isinstance(a, ast.Constant) and isinstance(a.value, bool)]
            subjects = [node.func.value] if isinstance(node.func, ast.Attribute) else []
            if flags and any(words(callee(s)) & GENERATOR_WORDS for s in [*subjects, *node.args]):
                switches.append((where, flags[-1] is False))
        if isinstance(node, ast.For) and _over_generator_parameters(node.iter) and "requires_grad" in ast.unparse(node):
            switches.append((where, "requires_grad = True" not in ast.unparse(node)))
        if isinstance(node, ast.Call) and _spelled(node) == "toggle_optimizer":
            switches.append((where, True))  # Lightning: every parameter outside the toggled optimiser stops requiring grad
    return max(switches, default=(None, False))[1]


def _script_nodes(ctx: ModuleContext) -> list[ast.AST]:
    """The module's nodes outside its function and class definitions."""
    def compute() -> list[ast.AST]:
        found, stack = [], list(ctx.tree.body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                continue
            found.append(node)
            stack.extend(ast.iter_child_nodes(node))
        return found
    return ctx.memo(("gan_fake.script_nodes",), compute)


def _over_generator_parameters(iterable: ast.AST) -> bool:
    """`netG.parameters()`, `self.generator.named_parameters()`."""
    return (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr in {"parameters", "named_parameters"}
            and bool(words(callee(iterable.func.value)) & GENERATOR_WORDS))


def generator_steps_on_it(backward: ast.Call, ctx: ModuleContext) -> bool:
    """After this backward, in the same function (through its local helpers) or, when that function ends
    first, in the functions that call it (`optimize_parameters` calling `backward_D()`), the generator's
    optimiser steps, or the generator's own backward runs before a step, with nothing in between that may
    clear the generator's gradients (a zero_grad named for it or for nothing we can place, a helper that
    says it clears gradients)."""
    function = function_or_module(backward, ctx)  # a script's top-level loop is its own scope
    found = _after(backward, function, ctx)
    if found is not None or function is ctx.tree:
        return bool(found)
    return any(_after(site, caller, ctx) for site in call_sites(function, ctx)
               if (caller := ctx.enclosing(site, FUNCTIONS)) is not None)


def _after(call: ast.Call, function: ast.AST, ctx: ModuleContext) -> bool | None:
    """True: the generator steps on what the backward left; False: something clears it first; None: the
    function ends before either."""
    calls = [c for c, _ in expanded_calls(function.body, ctx)]
    later = calls[calls.index(call) + 1:] if call in calls else []
    generator_backward = False
    for later_call in later:
        if is_zero_grad(later_call):
            receiver = later_call.func.value
            if _named(receiver, GENERATOR_WORDS) or not _named(receiver, DISCRIMINATOR_WORDS):
                return False
        elif _says_it_clears(later_call):
            return False
        elif is_backward(later_call) and generator_update(later_call.func.value, later_call, ctx):
            generator_backward = True
        elif optimizer_step(later_call, ctx):
            receiver = later_call.func.value
            stepped = later_call.args[0] if later_call.args and "scaler" in _spelled(receiver).lower() else receiver
            if _named(stepped, GENERATOR_WORDS) or generator_backward and not _named(stepped, DISCRIMINATOR_WORDS):
                return True
    return None
