"""A model's own parameters helper that leaves out a part its forward runs in the middle (MLD015).

`def non_discr_parameters(self): return [*self.encoder.parameters(), *self.decoder.parameters()]` while forward
runs `x = self.encoder(x)`, `x = self.encoder_attn(x) + x`, ..., `self.decoder(x)`: the optimizer built from the
helper never updates encoder_attn, although the loss that trains the encoder backpropagates through it. A part
called before the first listed part or after the last one (a discriminator scoring the output, a frozen
feature extractor ahead of the encoder) may well be trained elsewhere and is not asked about; nor a part
another parameters helper of the class lists, or one the class freezes or runs under no_grad.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..context import ModuleContext
from .graph import callee

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
OWN = {"parameters", "named_parameters"}  # the Module API's own (the buffers ones never name "param")


def subset_helpers(ctx: ModuleContext, parameter_free: Callable[[str], object]) -> list[tuple[ast.Return, list[str]]]:
    """(the helper's return, the parts left out) for each parameters helper of a class with a forward; a part
    counts when the class builds it from a class (`self.attn = LocalMHA(...)`) that `parameter_free` (the
    class's short name) does not call weightless."""
    found = []
    for cls in ctx.classes.values():
        methods = {m.name: m for m in cls.body if isinstance(m, FUNCTIONS)}
        forward = methods.get("forward")
        if forward is None:
            continue
        helpers = {name: listed for name, m in methods.items() if (listed := _listed_parts(m)) is not None}
        if not helpers:
            continue
        everywhere = set().union(*helpers.values())
        frozen = _frozen_parts(cls)
        built = _built_parts(cls, parameter_free)
        for name, listed in helpers.items():
            if len(listed) < 2:
                continue
            inside = _called_between(forward, listed)
            missing = [p for p in inside if p in built and p not in everywhere and p not in frozen]
            if missing:
                ret = next(r for r in ast.walk(methods[name]) if isinstance(r, ast.Return) and r.value is not None)
                found.append((ret, missing))
    return found


def _listed_parts(method: ast.AST) -> set[str] | None:
    """{'encoder', 'decoder'} when every return of a `*param*` method (not the Module API's own) is built from
    `self.<part>.parameters()` calls only (a list, unpacking, `+` of lists, itertools.chain)."""
    if method.name in OWN or "param" not in method.name.lower():
        return None
    returns = [r.value for r in ast.walk(method) if isinstance(r, ast.Return) and r.value is not None]
    if not returns:
        return None
    parts: set[str] = set()
    for value in returns:
        calls = [c for c in ast.walk(value) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                 and c.func.attr == "parameters"]
        if not calls:
            return None
        for call in calls:
            part = _self_part(call.func.value)
            if part is None:
                return None  # self.parameters(), a handed-in module: not a subset of parts
            parts.add(part)
    return parts


def _self_part(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None


def _called_between(forward: ast.AST, listed: set[str]) -> list[str]:
    """Parts of self called in forward after the first call of a listed part and before the last one,
    not under torch.no_grad()."""
    # a call finishes after the calls in its arguments: ordered by where each ends, `head(core(stem(x)))` runs
    # stem, core, head
    def done(call: ast.Call) -> tuple[int, int]:
        return call.end_lineno or call.lineno, call.end_col_offset or 0
    calls = sorted((c for c in ast.walk(forward) if isinstance(c, ast.Call) and _self_part(c.func) is not None),
                   key=done)
    lines = [done(c) for c in calls if _self_part(c.func) in listed]
    if len(lines) < 2:
        return []
    quiet = {id(n) for w in ast.walk(forward) if isinstance(w, ast.With) and _no_grad(w)
             for n in ast.walk(w)}
    found: list[str] = []
    for call in calls:
        part = _self_part(call.func)
        if lines[0] < done(call) < lines[-1] and part not in listed and part not in found and id(call) not in quiet:
            found.append(part)
    return found


def _no_grad(with_: ast.With) -> bool:
    return any(word in text for item in with_.items for text in [ast.unparse(item.context_expr)]
               for word in ("no_grad", "inference_mode"))


def _frozen_parts(cls: ast.ClassDef) -> set[str]:
    """Parts the class freezes (`self.x.requires_grad_(False)`, `for p in self.x.parameters(): p.requires_grad =
    False`), puts in eval mode, or that are not built in the class (a method of the class, not a module)."""
    frozen = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {
                "requires_grad_", "eval"}:
            part = _self_part(node.func.value)
            if part is not None:
                frozen.add(part)
        if isinstance(node, ast.For) and "requires_grad" in ast.unparse(node) and isinstance(node.iter, ast.Call) \
                and isinstance(node.iter.func, ast.Attribute) and (part := _self_part(node.iter.func.value)):
            frozen.add(part)
        if isinstance(node, FUNCTIONS):
            frozen.add(node.name)  # self.encode(x) calls a method, not a part with weights
    return frozen


def _built_parts(cls: ast.ClassDef, parameter_free: Callable[[str], object]) -> set[str]:
    """`self.x = SomeModule(...)` in the class, with a class that may hold weights."""
    built = set()
    for node in ast.walk(cls):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        pairs = zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
            and len(target.elts) == len(value.elts) else [(target, value)]
        for part, call in pairs:  # `self.a, self.b = nn.Linear(...), nn.Linear(...)` pairwise
            short = callee(call.func) if isinstance(call, ast.Call) else ""
            if short[:1].isupper() and not parameter_free(short) and (name := _self_part(part)) is not None:
                built.add(name)
    return built
