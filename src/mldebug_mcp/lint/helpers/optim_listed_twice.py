"""One module's parameters listed twice in the collection an optimiser is built on, a copy-paste slip that
leaves out the module meant instead: `list(self.loss_mrd.parameters()) + list(self.loss_mrd.parameters())`
where `self.loss_mpd` was meant. Split lists (`[p for n, p in model.named_parameters() if ...]` twice, the
weight-decay groups) are filtered and left alone: only bare `X.parameters()` calls count."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .graph import callee
from .optim_params import dotted

# `filter(...)` keeps a part; `next(m.parameters())` reads one tensor's dtype or device, `len(list(...))` counts
# them (SlowFast's assert that every parameter went into a group): none of them lists anything
PICKS = {"filter", "next", "len"}
FILTERS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp, ast.Lambda, ast.comprehension,
           ast.IfExp, ast.BoolOp)  # filtered, or one arm of a choice


def listed_twice(ctx: ModuleContext) -> list[tuple[ast.Call, str, list[str]]]:
    """(the second `X.parameters()` call, X, sibling modules that no `.parameters()` call names and whose
    names differ from X's by one or two letters)."""
    seen: dict[tuple[ast.stmt, str], ast.Call] = {}
    found = []
    # the `X.parameters()` calls, then in source order (filtered before the sort: the same order, far fewer)
    listed = [c for c in ctx.by_type.get(ast.Call, ())
              if isinstance(c.func, ast.Attribute) and c.func.attr == "parameters" and not c.args]
    for call in sorted(listed, key=lambda c: (c.lineno, c.col_offset)):
        path = dotted(call.func.value)
        statement = None
        child = call
        for ancestor in ctx.ancestors(call):
            if isinstance(ancestor, FILTERS) or isinstance(ancestor, ast.Call) and callee(ancestor.func) in PICKS:
                break
            if isinstance(ancestor, ast.Subscript) and child is ancestor.value:
                break  # `list(m.parameters())[1::2]`: a slice of the list, its complement may follow
            child = ancestor
            if isinstance(ancestor, ast.stmt):
                statement = ancestor
                break
        if path is None or statement is None or isinstance(statement, ast.For | ast.AsyncFor):
            continue
        # `net.blocks[0].parameters()` and `net.blocks[1].parameters()` are different modules
        first = seen.setdefault((statement, ast.unparse(call.func.value)), call)
        if first is not call:
            found.append((call, path, _near_misses(path, statement, ctx)))
    return found


def _near_misses(path: str, statement: ast.stmt, ctx: ModuleContext) -> list[str]:
    """Attributes set on the same object whose names differ from the listed one's by one or two letters
    (`self.loss_mpd` for `self.loss_mrd`), not named in this statement."""
    base = path.rpartition(".")[0]
    if not base:
        return []
    here = {dotted(n) for n in ast.walk(statement) if isinstance(n, ast.Attribute)}
    candidates = {f"{base}.{n.attr}" for n in ctx.by_type.get(ast.Attribute, ())
                  if isinstance(n.ctx, ast.Store) and dotted(n.value) == base}
    return sorted(c for c in candidates - here
                  if len(c) == len(path) and 0 < sum(a != b for a, b in zip(c, path, strict=True)) <= 2)
