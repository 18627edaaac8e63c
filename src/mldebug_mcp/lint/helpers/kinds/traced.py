"""A kind with where it came from: the nodes of this file that gave the value its kind (the softmax call, the
nn.Softmax() at the end of a Sequential), or the name of another file's model or function it was read from."""

from __future__ import annotations

import ast


class Traced:
    """`kind` ('softmax', 'sigmoid', 'log_softmax', 'relu', 'logits'); `origins`: nodes of this file where the
    value got it, in source order; `via`: the name of another file's definition the kind was read from."""

    __slots__ = ("kind", "origins", "via")

    def __init__(self, kind: str, origins: tuple[ast.AST, ...] = (), via: str | None = None) -> None:
        self.kind, self.origins, self.via = kind, origins, via

    def __repr__(self) -> str:
        lines = [getattr(o, "lineno", "?") for o in self.origins]
        return f"Traced({self.kind!r}, lines={lines}, via={self.via!r})"


class Argument(ast.expr):
    """A constructor argument not known yet: the facts of a model whose output is what one of its `__init__`
    arguments returns (`Seq2Seq(encoder, decoder)` returns element 0 of the decoder's output) say so, and the
    file that builds the model reads the kind from the argument it passes (see `symbolic`)."""

    def __init__(self, position: int, name: str) -> None:
        super().__init__()
        self.position, self.name = position, name

    def kind(self, index: int | None) -> str:
        return f"{SYMBOLIC}{self.position}:{self.name}" + (f"/{index}" if index is not None else "")


SYMBOLIC = "arg:"


def symbolic(kind: str) -> tuple[int, str, int | None] | None:
    """(position, name, element) of 'arg:1:decoder/0'; None for a plain kind."""
    if not kind.startswith(SYMBOLIC):
        return None
    position, _, rest = kind[len(SYMBOLIC):].partition(":")
    name, _, element = rest.partition("/")
    return int(position), name, (int(element) if element.lstrip("-").isdigit() else element) if element else None


def agree(found: list[Traced | None]) -> Traced | None:
    """The one kind every candidate has (their origins together), or None when any is unknown or they differ."""
    if not found or found[0] is None:
        return None
    kind = found[0].kind
    if any(f is None or f.kind != kind for f in found):
        return None
    if len(found) == 1:
        return found[0]
    origins: list[ast.AST] = []
    for f in found:
        origins.extend(o for o in f.origins if o not in origins)
    origins.sort(key=position)
    return Traced(kind, tuple(origins), next((f.via for f in found if f.via), None))


BRANCH_ACTIVATIONS = ("softmax", "sigmoid", "log_softmax")


# a fact key's suffix for the activation one branch of a function or forward applies while the others leave the
# values raw (`Net~` -> 'softmax'): told beside the strict kind, read by lenient walks only
BRANCHED = "~"


def any_activation(found: list[Traced | None]) -> Traced | None:
    """The one activation some candidates have while every other is unknown or raw logits; None otherwise."""
    applied = [f for f in found if f is not None and f.kind in BRANCH_ACTIVATIONS]
    if not applied or len({f.kind for f in applied}) != 1:
        return None
    if any(f is not None and f.kind not in BRANCH_ACTIVATIONS and f.kind != "logits" for f in found):
        return None
    return agree(applied)


def position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def end(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0


def is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
