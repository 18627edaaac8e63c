"""A model registry (MLD001): a factory that returns the entry a name picks from a module-level table
(`return _entrypoints[name](**kwargs)`, `MODELS.get(name)(...)`), filled by a registering decorator
(`@register_model` storing `table[fn.__name__] = fn`), by `table[key] = builder` statements, or written as a
dict literal. Whichever entry the run's config picks is the model its loss takes, so each is asked."""

from __future__ import annotations

import ast


def registered_entries(func: ast.AST, ctx) -> list[str]:
    """The names of the functions and classes of this module the table returned by `func` may hold; [] when
    `func` returns no table lookup."""
    tables = {name for ret in ctx.in_scope(func, (ast.Return,)) if (name := _table_lookup(ret.value))}
    if not tables:
        return []
    return ctx.memo(("models-registry", frozenset(tables)), lambda: _entries(tables, ctx))


def _table_lookup(value: ast.AST | None) -> str | None:
    """`TABLE[key](...)`, `TABLE[key]`, `TABLE.get(key)(...)` -> "TABLE" (a variable key: a constant is one model)."""
    if isinstance(value, ast.Call):
        value = value.func
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get":
        value = value.func.value
    elif isinstance(value, ast.Subscript) and not isinstance(value.slice, ast.Constant):
        value = value.value
    else:
        return None
    return value.id if isinstance(value, ast.Name) else None


def _entries(tables: set[str], ctx) -> list[str]:
    found: list[str] = []
    registering = set()  # decorators whose body stores their argument into a table
    for name, func in ctx.functions.items():
        params = [a.arg for a in func.args.args]
        if params and any(_stores_into(a, tables, params[0]) for a in ctx.in_scope(func, (ast.Assign,))):
            registering.add(name)
    for owner in [*ctx.functions.values(), *ctx.classes.values()]:
        if any(_decorator_name(d) in registering for d in owner.decorator_list):
            found.append(owner.name)
    for statement in ctx.tree.body:  # TABLE = {"a": build_a, ...}; TABLE["b"] = build_b
        if not isinstance(statement, ast.Assign):
            continue
        named = any(isinstance(t, ast.Name) and t.id in tables for t in statement.targets)
        if named and isinstance(statement.value, ast.Dict):
            found += [v.id for v in statement.value.values if isinstance(v, ast.Name)]
        elif isinstance(statement.value, ast.Name) and _stores_into(statement, tables, None):
            found.append(statement.value.id)
    return [n for n in dict.fromkeys(found) if n in ctx.functions or n in ctx.classes]


def _stores_into(assign: ast.Assign, tables: set[str], param: str | None) -> bool:
    """`table[key] = param` (or any name when `param` is None)."""
    if param is not None and not (isinstance(assign.value, ast.Name) and assign.value.id == param):
        return False
    return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in tables
               for t in assign.targets)


def _decorator_name(decorator: ast.expr) -> str | None:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.id if isinstance(target, ast.Name) else None
