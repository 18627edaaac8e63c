"""Two optimisers kept on one object and built, one after the other, over the same parameters: a copy-paste slip
that leaves the module meant for the second in no optimiser (dreamer-pytorch's `value_optimizer` built over
`get_parameters(self.model_modules)`, the world model's, beside `model_optimizer`; blind split 16). Optimisers in
different branches, kept in local names (a phase that rebuilds one), or over a collection rebound between the two
are left alone."""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_params import is_optimizer_name, params_argument


def built_over_same_parameters(call: ast.Call, ctx: ModuleContext) -> ast.Call | None:
    """The earlier optimiser construction of the same block whose parameters argument reads the same as `call`'s,
    when both are kept in different attributes (`self.model_optimizer`, `self.value_optimizer`)."""
    stmt = ctx.parent(call)
    params = params_argument(call)
    if params is None or not _kept_on_attribute(stmt, call):
        return None
    block = _block_of(stmt, ctx)
    if block is None:
        return None
    same = ast.dump(params)
    read = {n.id for n in ast.walk(params) if isinstance(n, ast.Name)}
    for earlier in reversed(block[:block.index(stmt)]):
        if _rebinds(earlier, read):
            return None
        value = earlier.value if isinstance(earlier, ast.Assign) else None
        if (isinstance(value, ast.Call) and _kept_on_attribute(earlier, value)
                and is_optimizer_name(ctx.call_name(value)) and ast.dump(earlier.targets[0]) != ast.dump(stmt.targets[0])):
            other = params_argument(value)
            if other is not None and ast.dump(other) == same:
                return value
    return None


def _kept_on_attribute(stmt: ast.AST, call: ast.Call) -> bool:
    return (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute))


def _block_of(stmt: ast.stmt, ctx: ModuleContext) -> list[ast.stmt] | None:
    parent = ctx.parent(stmt)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if type(block) is list and stmt in block:
            return block
    return None


def _rebinds(stmt: ast.stmt, names: set[str]) -> bool:
    """Whether `stmt` assigns one of `names` (the collection the parameters are read from)."""
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names for n in ast.walk(stmt))
