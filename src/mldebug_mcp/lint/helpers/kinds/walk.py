"""The walker that answers kind questions, and the questions rules ask of it."""

from __future__ import annotations

import ast

from .callees import Callees
from .traced import Traced, agree, any_activation
from .values import Values
from .vocabulary import DEPTH


class Walk(Values, Callees):
    """One question's walk. Answers without an environment are kept per module (ctx.memo), in `space`:
    the project facts are computed before the project index exists and keep theirs apart."""

    __slots__ = ("active", "ctx", "lenient", "memo")

    def __init__(self, ctx, space: str = "kinds", lenient: bool = False) -> None:
        self.ctx, self.lenient = ctx, lenient
        self.memo = ctx.memo((space,), dict)
        self.active = ctx.memo((space, "active"), set)

    def agree(self, found: list[Traced | None]) -> Traced | None:
        """The kind branches agree on; a lenient walk also takes the one activation some branch applies while
        the others leave the values unknown or raw (`if self.nsamples > 1: out = F.softmax(out, 1)`)."""
        strict = agree(found)
        return strict if strict is not None or not self.lenient else any_activation(found)


def traced_kind(expr: ast.AST, ctx) -> Traced | None:
    """The kind of `expr` where it stands, with the nodes that gave it (see traced.py)."""
    return Walk(ctx).kind(expr, None, DEPTH)


def traced_kind_any(expr: ast.AST, ctx) -> Traced | None:
    """The activation `expr` holds on some branch that reaches it, when the others leave it unknown or raw (a
    softmax applied only `if self.nsamples > 1`): for rules where a value that may be probabilities is enough."""
    return Walk(ctx, "kinds-any", lenient=True).kind(expr, None, DEPTH)


def kind_of(expr: ast.AST, ctx, depth: int = DEPTH) -> str | None:
    """The kind of `expr` where it stands: 'softmax', 'sigmoid', 'log_softmax', 'relu', 'logits' or None."""
    found = Walk(ctx).kind(expr, None, depth)
    return found.kind if found is not None else None


def traced_output(module: ast.AST, ctx) -> Traced | None:
    """The kind of what calling `module` returns: a module instance, a model class, a function."""
    return Walk(ctx).callee(module, None, DEPTH)


def output_kind(module: ast.AST, ctx) -> str | None:
    found = traced_output(module, ctx)
    return found.kind if found is not None else None


def traced_return(owner: ast.AST, ctx, space: str = "kinds", lenient: bool = False) -> Traced | None:
    """The kind a function (or a class's forward) returns, every return agreeing (lenient: the activation some
    branch applies while the others leave the values raw, see `traced_kind_any`)."""
    walk = Walk(ctx, space + "-any", lenient=True) if lenient else Walk(ctx, space)
    if isinstance(owner, ast.ClassDef):
        return walk.model(owner, None, None, DEPTH)
    return walk.returned(owner, None, None, DEPTH)


def traced_element(owner: ast.AST, index: int, ctx, space: str = "kinds") -> Traced | None:
    """The kind of element `index` of the tuple a function (or a class's forward) returns."""
    walk = Walk(ctx, space)
    if isinstance(owner, ast.ClassDef):
        return walk.model(owner, None, index, DEPTH)
    return walk.returned(owner, None, index, DEPTH)


def returned_kind(owner: ast.AST, ctx) -> str | None:
    found = traced_return(owner, ctx)
    return found.kind if found is not None else None


def module_output(module: ast.AST, ctx) -> str | None:
    """The kind a model returns, given as a class (`NeuralNetClassifier(Net, ...)`) or as an instance."""
    found = traced_module_output(module, ctx)
    return found.kind if found is not None else None


def traced_module_output(module: ast.AST, ctx) -> Traced | None:
    value = ctx.resolve(module)
    name = ctx.qualname(value) if isinstance(value, ast.Name | ast.Attribute) else None
    if name is not None:
        simple = name.rsplit(".", 1)[-1]
        if name in ctx.classes:
            return traced_return(ctx.classes[name], ctx)
        if simple[:1].isupper() and not name.startswith("torch."):
            return Walk(ctx).foreign(simple, None)
        return None
    return traced_output(module, ctx)
