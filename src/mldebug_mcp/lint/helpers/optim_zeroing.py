"""Which gradients a zero_grad() call clears, and whether they are a stepped optimiser's.

`opt_d.zero_grad()` clears what `opt_d` holds; `netD.zero_grad()` clears the parameters of `netD`, so it
serves an optimiser built on `netD.parameters()` (or on a submodule of it), and an optimiser that is an
attribute of that module (`D.optim`, `self.generator.optimizer`). Where the relation cannot be read
(an optimiser passed in, a module wrapped in an object we cannot see), a module's zero_grad counts as
clearing it: the rules built on this stay quiet when unsure.
"""

from __future__ import annotations

import ast

from ..context import SELF_RETURNING, ModuleContext
from .optim_params import dotted, is_optimizer_name, optimizer_sources, within


def stepped_optimizer(call: ast.Call) -> ast.AST | None:
    """The optimiser of `opt.step()` or `scaler.step(opt)`; None for `opt.step(closure)` (LBFGS-style:
    the closure zeroes) and for steps whose optimiser cannot be named."""
    receiver = call.func.value
    if "scaler" in (dotted(receiver) or "").lower():
        return call.args[0] if call.args else None
    return None if call.args or call.keywords else receiver


def keys(expr: ast.AST, ctx: ModuleContext) -> set[str]:
    """Names an optimiser (or module) goes by here: its spelling, the attribute it was read from
    (`opt = self.opt_d`), the collection a loop variable runs over (`for opt in self.optimizers`)."""
    found = {dotted(expr)} - {None}
    if isinstance(expr, ast.Name):
        value = ctx.resolve(expr)
        if value is not expr and isinstance(value, ast.Name | ast.Attribute | ast.Subscript):
            found.add(dotted(value))
        for loop in ctx.ancestors(expr):
            if isinstance(loop, ast.For | ast.comprehension) and expr.id in _targets(loop.target):
                found.add(dotted(_strip_methods(loop.iter)))
    elif isinstance(expr, ast.Subscript):
        found.add(dotted(expr.value))
    return found - {None}


def _targets(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _strip_methods(expr: ast.AST) -> ast.AST:
    """`self.optimizers.values()` -> `self.optimizers`; `enumerate(opts)` -> `opts`."""
    while isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute):
            expr = expr.func.value
        elif expr.args:
            expr = expr.args[0]
        else:
            break
    return expr


def is_optimizer(expr: ast.AST, ctx: ModuleContext) -> bool:
    """A zero_grad receiver that is an optimiser (not a module): built by an optimiser class, or named so."""
    built = ctx.constructed(expr) or ""
    if is_optimizer_name(built) or "optim" in built.lower():
        return True
    if built:
        return False
    name = (dotted(expr) or "").rsplit(".", 1)[-1].lower()
    return "opt" in name or "solver" in name


def module_paths(expr: ast.AST, ctx: ModuleContext) -> set[str]:
    """The module a zero_grad clears, under every name we can see: `model`, what `model` was read from
    (`model = self.net.to(device)`), and what a wrapper was built around (`model = DDP(net)`)."""
    found = keys(expr, ctx)
    value = ctx.resolve(expr)
    for _ in range(4):  # Net().to(device).train() -> Net()
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SELF_RETURNING:
            value = value.func.value
            found |= {dotted(value)} - {None}
        else:
            break
    if isinstance(value, ast.Call):
        found |= {dotted(a) for a in [*value.args, *(k.value for k in value.keywords)]} - {None}
    return found


def cleared(zeros: list[ast.Call], optimizer: ast.AST, ctx: ModuleContext) -> bool:
    """True when the zero_grad calls `zeros` may clear the gradients `optimizer` steps with: one names it
    (or the module it belongs to), or together they clear every module it was built on (another optimiser
    over the same parameters counts)."""
    names = keys(optimizer, ctx)
    paths: set[str] = set()
    module_zero = False
    for zero in zeros:
        receiver = zero.func.value
        if _wrapper_of(optimizer, receiver, ctx):
            return True
        if is_optimizer(receiver, ctx):
            if keys(receiver, ctx) & names:
                return True
            paths |= {path for path, _ in optimizer_sources(receiver, ctx) or ()}
            continue
        modules = module_paths(receiver, ctx)
        if any(within(name, m) for name in names for m in modules):
            return True  # D.optim, self.generator.optimizer: the optimiser of that module
        paths |= modules
        module_zero = True
    sources = optimizer_sources(optimizer, ctx)
    if sources is None:
        owner = _owning_module(optimizer, ctx)
        if owner is None:
            return module_zero  # cannot see what it holds: a module's zero_grad may be clearing it
        sources = [(owner, False)]
    return all(any(within(path, p) or within(p, path) for p in paths) for path, _ in sources)


def _wrapper_of(stepped: ast.AST, zeroed: ast.AST, ctx: ModuleContext) -> bool:
    """The stepped object wraps the zeroed optimiser, so its step uses the gradients that zero_grad() clears: it holds
    it as an attribute (a Noam schedule's `self.opt.step()` after `self.opt.optimizer.zero_grad()`) or was built
    from it (`wrapper = PerLayerOptimWrapper(model, optimizer)`; `wrapper.step()` after `optimizer.zero_grad()`)."""
    outer, inner = dotted(stepped), dotted(zeroed)
    if outer and inner and inner.startswith(outer + "."):
        return True
    if not isinstance(stepped, ast.Name | ast.Attribute) or not inner:
        return False
    return any(isinstance(value, ast.Call) and any(dotted(arg) == inner for arg in (
        *value.args, *(k.value for k in value.keywords))) for value in ctx.values_of(stepped, stepped))


MODULE_METHODS = {"zero_grad", "parameters", "named_parameters", "train", "eval", "forward"}


def _owning_module(optimizer: ast.AST, ctx: ModuleContext) -> str | None:
    """`D` for `D.optim`, `self.netD` for `self.netD.optimizer`, when that object is used as a module in
    this file (called on inputs, or asked for its parameters, its mode or zero_grad)."""
    if not isinstance(optimizer, ast.Attribute) or isinstance(optimizer.value, ast.Name) and optimizer.value.id == "self":
        return None
    owner = dotted(optimizer.value)
    return owner if owner in _used_as_modules(ctx) else None


def _used_as_modules(ctx: ModuleContext) -> set[str]:
    def collect() -> set[str]:
        found = set()
        for call in ctx.by_type.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in MODULE_METHODS:
                found.add(dotted(func.value))
            elif call.args and isinstance(func, ast.Name | ast.Attribute):
                found.add(dotted(func))
        return found - {None}

    return ctx.memo(("optim_zeroing.modules",), collect)
