"""Losses chosen among several, every choice expecting logits (MLD001).

`if multi_label: loss_fn = nn.BCEWithLogitsLoss() else: loss_fn = nn.CrossEntropyLoss()` (or `a if c else b`)
names no single loss, yet whichever runs applies its own sigmoid/softmax. The choice may be kept on an
arguments or config object and called in another function of the module (`args.loss_fn = loss_fn` in train,
`args.loss_fn(out, y)` in validate, with `args` handed along): the stores `<name>.<attr> = value` of the
module, on names other than self, are read for `<name>.<attr>(...)` (another file's, through `objloss:` facts).
Also a dict of losses indexed by a key, a loss parameter whose callers hand such a choice, and the other side:
an activation applied on the branch a class-count test picks (`if self.num_classes > 1: log_softmax`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from .kinds import (
    Traced,
    call_sites,
    handed_kinds,
    parameter_root,
    reaching_values,
    traced_kind_any,
)

OBJECT = "objloss:"
LOSS_WORDS = re.compile(r"(?i)loss|criterion|crit$|objective")
# a branch on the number of classes: `if self.num_classes > 1: out = F.log_softmax(out, 1)` (else raw, for a
# binary loss); the multi-class loss meets the activated branch
CLASS_COUNT = re.compile(r"(?i)class")


def branch_logit_loss(call: ast.Call, ctx, source_of: Callable, logit: frozenset) -> str | None:
    """The qualified name of a logit loss when every loss the callee of `call` may hold is one (`source_of`
    names the loss a single value holds: losses.loss_source); None when any choice is unknown or another."""
    callee = call.func
    holder = _holder(callee)
    if holder is not None:
        values = _object_stores(ctx).get((holder, callee.attr), [])
        if not values and ctx.project is not None:  # stored by another file of the run (`args.loss_fn = ...`)
            return ctx.project.kind_returned_by(f"{OBJECT}{holder}.{callee.attr}")
    elif isinstance(callee, ast.Name) and not ctx.values_of(callee, at=call):
        values = call_sites(callee, ctx)  # a parameter: what the callers of this module hand in
    elif isinstance(callee, ast.Name | ast.Attribute):
        values = ctx.values_of(callee, at=call)
        if len(values) < 2 and not any(isinstance(v, ast.IfExp | ast.Subscript) for v in values):
            return None  # one value: losses.loss_source has judged it
        if isinstance(callee, ast.Name):
            values = [v for v, element in (reaching_values(callee, ctx)[1] or []) if element is None]
    else:
        return None
    names: set[str] = set()
    for value in values:
        found = _losses(value, ctx, source_of, 3)
        if not found:
            return None
        names |= found
    return min(names) if names and names <= logit else None


def object_loss_facts(ctx, source_of: Callable, logit: frozenset) -> dict[str, str]:
    """`objloss:<object>.<attr>` -> the logit loss every `object.attr = value` of this file stores, for the file
    that calls `object.attr(...)` (a config object filled in run.py, read in traintest.py)."""
    facts = {}
    for (holder, attr), values in _object_stores(ctx).items():
        if not LOSS_WORDS.search(attr):
            continue
        found = [_losses(v, ctx, source_of, 3) for v in values]
        names = set().union(*found) if all(found) else set()
        if names and names <= logit:
            facts[f"{OBJECT}{holder}.{attr}"] = min(names)
    return facts


def _losses(value: ast.AST, ctx, source_of: Callable, depth: int) -> set[str] | None:
    """The losses a value may hold: each side of `a if c else b`, each assignment of a name that reaches it."""
    if depth <= 0:
        return None
    if isinstance(value, ast.IfExp):
        sides = [_losses(v, ctx, source_of, depth - 1) for v in (value.body, value.orelse)]
        return sides[0] | sides[1] if all(sides) else None
    table = ctx.resolve(value.value) if isinstance(value, ast.Subscript) else None
    if isinstance(table, ast.Dict) and table.values and None not in table.keys:  # {"bce": ..., "ce": ...}[name]
        found = [_losses(v, ctx, source_of, depth - 1) for v in table.values]
        return set().union(*found) if all(found) else None
    if isinstance(value, ast.Name):
        reaching = [v for v, element in (reaching_values(value, ctx)[1] or []) if element is None]
        if len(reaching) > 1 or reaching and isinstance(reaching[0], ast.IfExp):
            found = [_losses(v, ctx, source_of, depth - 1) for v in reaching]
            return set().union(*found) if all(found) else None
    source = source_of(value, ctx)
    return {source.name} if source is not None else None


def _holder(target: ast.AST) -> str | None:
    """The name of the object an attribute is kept on, other than self: `args` for `args.loss_fn` and for
    `self.args.loss_fn` (the object a method keeps is the one its caller handed in)."""
    if not isinstance(target, ast.Attribute):
        return None
    base = target.value
    if isinstance(base, ast.Name):
        return base.id if base.id != "self" else None
    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self":
        return base.attr
    return None


def _object_stores(ctx) -> dict[tuple[str, str], list[ast.expr]]:
    """(object, attr) -> the values of `object.attr = value` in the module, for objects other than self."""
    def compute() -> dict[tuple[str, str], list[ast.expr]]:
        stores: dict[tuple[str, str], list[ast.expr]] = {}
        for assign in ctx.by_type.get(ast.Assign, ()):
            for target in assign.targets:
                holder = _holder(target)
                if holder is not None:
                    stores.setdefault((holder, target.attr), []).append(assign.value)
        return stores

    return ctx.memo(("losses", "object-stores"), compute)


def class_count_kinds(arg: ast.expr, ctx) -> list[tuple[ast.expr, Traced]]:
    """(where, kind) for a loss input that holds an activation on the branch a class-count test picks (here or
    in what the callers hand a parameter), the other branch leaving it raw."""
    found = traced_kind_any(arg, ctx)
    if found is not None:
        return [(arg, found)] if by_class_count(found, ctx) else []
    root = parameter_root(arg, ctx)
    handed = handed_kinds(root, ctx, lenient=True) if root is not None else []
    return [(where, kind) for where, kind in handed if by_class_count(kind, ctx)]


def by_class_count(found: Traced | None, ctx) -> bool:
    """Every origin of the activation sits in a branch of an `if` whose test reads a class count."""
    return found is not None and bool(found.origins) and all(_class_branch(o, ctx) for o in found.origins)


def _class_branch(node: ast.AST, ctx) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.If | ast.IfExp):
            return _reads_class_count(anc.test)
        if isinstance(anc, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
    return False


def branches_on_class_count(cls: ast.ClassDef) -> bool:
    """The class's forward holds an `if` on a class count (asked before the project is: a cheap text-free test)."""
    forward = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    return forward is not None and any(isinstance(n, ast.If | ast.IfExp) and _reads_class_count(n.test)
                                       for n in ast.walk(forward))


def _reads_class_count(test: ast.expr) -> bool:
    """A name or attribute in the test of an `if` names a class count (`self.num_classes > 1`)."""
    return any(CLASS_COUNT.search(n.id if isinstance(n, ast.Name) else n.attr)
               for n in ast.walk(test) if isinstance(n, ast.Name | ast.Attribute))
