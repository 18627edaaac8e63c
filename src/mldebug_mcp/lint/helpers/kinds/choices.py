"""A model picked by a key from a table of classes: `MODELS[args.arch](num_classes=10)`, or TorchSeg's and
neptune's `configs[encoder]['model'](**configs[encoder]['model_config'])`. Whichever entry the key picks at run
time is the one the loss takes, so each class the table lists is fed to it (helpers/kinds/facts.py)."""

from __future__ import annotations

import ast


def picked_entries(expr: ast.AST, ctx, depth: int = 4) -> list[ast.expr]:
    """The values `expr` (a subscript of a dict literal, maybe of a dict of dicts) may pick; [] when unknown.
    A constant key picks its entry; any other key may pick every entry."""
    if depth <= 0:
        return []
    value = ctx.resolve(expr)
    if isinstance(value, ast.Dict):
        return [value]
    if not isinstance(value, ast.Subscript):
        return []
    key = value.slice
    found = []
    for table in picked_entries(value.value, ctx, depth - 1):
        table = ctx.resolve(table)
        if not isinstance(table, ast.Dict) or any(k is None for k in table.keys):
            return []  # `{**base, ...}`: entries not visible
        keys = [k.value if isinstance(k, ast.Constant) else None for k in table.keys]
        if isinstance(key, ast.Constant):
            found += [v for k, v in zip(keys, table.values, strict=False) if k == key.value]
        else:
            found += table.values
    return found[:16]
