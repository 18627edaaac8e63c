"""Whether an evaluation split is ever read (MLD056): a split whose loader nothing iterates evaluates nothing.

parti's and DALLE2's VQGAN trainers split `self.valid_ds` off an augmented dataset and build
`self.valid_dl = cycle(DataLoader(self.valid_ds, ...))`, which no method reads; PointFusion builds a `test_loader`
it never uses. Augmentation on samples nobody evaluates changes no metric.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_params import dotted

# calls that hand a loader on unchanged for iteration
PASS_ON = {"cycle", "iter"}
LOADERS = {"DataLoader"}
SIZES = {"len", "print"}


def never_read(part: str, split: ast.Call, ctx: ModuleContext) -> bool:
    """The split named `part` is only handed to loaders that nothing reads afterwards, or only sized or printed."""
    for use in _loads(part, split, ctx):
        holder = _loader_holding(use, ctx)
        if holder is None:
            if _sized(use, ctx):
                continue  # `print(f'validating with {len(self.valid_ds)} samples')`
            return False
        if _loads(holder, use, ctx):
            return False
    return True


def _loads(text: str, origin: ast.AST, ctx: ModuleContext) -> list[ast.AST]:
    """The reads of `text` (a name or `self.x`) in the file outside the statement of `origin`."""
    statement = next((a for a in ctx.ancestors(origin) if isinstance(a, ast.stmt)), None)
    kind = ast.Attribute if "." in text else ast.Name
    found = []
    for node in ctx.by_type.get(kind, ()):
        if isinstance(node.ctx, ast.Load) and dotted(node) == text and not any(
                a is statement for a in ctx.ancestors(node)):
            found.append(node)
    return found


def _loader_holding(use: ast.AST, ctx: ModuleContext) -> str | None:
    """The name a `DataLoader(split, ...)` (also under `cycle(...)`/`iter(...)`) built from `use` is assigned to."""
    call = ctx.parent(use)
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is use or isinstance(call, ast.keyword)):
        return None
    if isinstance(call, ast.keyword):
        if call.arg != "dataset":
            return None
        call = ctx.parent(call)
    if not isinstance(call, ast.Call) or (ctx.call_name(call) or dotted(call.func) or "").rsplit(".", 1)[-1] not in LOADERS:
        return None
    outer = ctx.parent(call)
    while isinstance(outer, ast.Call) and (dotted(outer.func) or "").rsplit(".", 1)[-1] in PASS_ON:
        outer = ctx.parent(outer)
    if isinstance(outer, ast.Assign) and len(outer.targets) == 1:
        return dotted(outer.targets[0])
    return None


def _sized(use: ast.AST, ctx: ModuleContext) -> bool:
    call = ctx.parent(use)
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in SIZES
