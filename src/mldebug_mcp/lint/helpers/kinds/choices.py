"""A model picked by a key from a table of classes: `MODELS[args.arch](num_classes=10)`, or TorchSeg's and
neptune's `configs[encoder]['model'](**configs[encoder]['model_config'])`. Whichever entry the key picks at run
time is the one the loss takes, so each class the table lists is fed to it (helpers/kinds/facts.py). Also a
class picked by name from a module (`getattr(models, args.model)(...)`, `models.__dict__[args.arch]()`): told as
`module:models`, which each model of a file named models.py (or of a package `models/`) reads."""

from __future__ import annotations

import ast
import os

MODULE = "module:"


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


def picked_module(func: ast.AST, ctx) -> str | None:
    """`module:models` for `getattr(models, name)` or `models.__dict__[name]` with a name not written out, where
    `models` is an imported module: any model class of it may be the one built."""
    if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr" \
            and len(func.args) >= 2 and not isinstance(func.args[1], ast.Constant):
        module = func.args[0]
    elif isinstance(func, ast.Subscript) and isinstance(func.value, ast.Attribute) \
            and func.value.attr == "__dict__" and not isinstance(func.slice, ast.Constant):
        module = func.value.value
    else:
        return None
    name = ctx.qualname(module) if isinstance(module, ast.Name | ast.Attribute) else None
    imported = isinstance(module, ast.Name) and module.id in ctx.aliases or isinstance(module, ast.Attribute)
    if name is None or not imported or name.startswith("torch") or name[:1].isupper():
        return None
    return MODULE + name.rsplit(".", 1)[-1]


def module_names(path: str) -> list[str]:
    """The names another file may import this one by: `module:models` for models.py or models/<any>.py."""
    stem = os.path.splitext(os.path.basename(path))[0]
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return [MODULE + n for n in (stem, parent) if n and n != "__init__"]
