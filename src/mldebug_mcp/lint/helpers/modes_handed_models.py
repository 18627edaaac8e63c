"""What a value is, told by what the file does with it rather than by its name (MLD020-MLD022, issue 17):
a parameter every call of its function hands a model (`val(net, loader)` makes val's first parameter a
model, whatever it is called), and what a module-only statement is applied to (`x.to(device)` as a statement
moves in place: only a module does; `x.eval()`).

Kept apart from evaluation.py, which asks these through `model_like` (passed in: no import cycle)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..context import ModuleContext

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
# a tensor's .to()/.cuda() returns a copy: as a bare statement only a module's moves anything
IN_PLACE_MOVES = {"to", "cuda", "cpu"}


def module_statement_owners(ctx: ModuleContext) -> set[str]:
    """The keys of what a statement treats as a module: `net.to(device)` / `net.cuda()` whose result is
    discarded, and `net.eval()` (no arguments)."""
    def compute() -> set[str]:
        found = set()
        for call in ctx.by_type.get(ast.Call, ()):
            func = call.func
            if not isinstance(func, ast.Attribute):
                continue
            if (func.attr in IN_PLACE_MOVES and isinstance(ctx.parent(call), ast.Expr)) or (
                    func.attr == "eval" and not call.args and not call.keywords):
                key = _key(func.value)
                if key is not None and key != "self":
                    found.add(key)
        return found
    return ctx.memo(("modes-handed", "statement-owners"), compute)


def handed_a_model(name: ast.Name, ctx: ModuleContext, model_like: Callable[[ast.AST, ModuleContext], bool]) -> bool:
    """A parameter of the function around `name`, never rebound there, that every call of that function in
    this file (at least one) hands a model: `val(net, loader)` -> val(v1, v2)'s v1."""
    scope = ctx.scope_of(name)
    if not isinstance(scope, FUNCS) or name.id not in _params(scope) or ctx.bindings.get(scope, {}).get(name.id):
        return False
    # a method is called on an object, a function by its name (a function and a method may share a name)
    kind = ast.Attribute if isinstance(ctx.parent(scope), ast.ClassDef) else ast.Name
    calls = [c for c in _calls_of(scope.name, ctx) if ctx.scope_of(c) is not scope and isinstance(c.func, kind)]
    if not calls:
        return False
    for call in calls:
        argument = _argument(call, scope, name.id)
        if not isinstance(argument, ast.Name | ast.Attribute) or not model_like(argument, ctx) or _wrapped(
                argument, ctx, model_like):
            return False
    return True


def _wrapped(argument: ast.AST, ctx: ModuleContext, model_like) -> bool:
    """Built by another library's class around a model (`Laplace(model, ...)`, an OOD detector): that object
    runs the model in the mode it chooses, and the function handed it is no evaluation of a model of ours.
    torch's own wrappers (DataParallel) forward the mode."""
    values = ctx.values_of(argument, argument) if isinstance(argument, ast.Name) else []
    return bool(values) and all(
        isinstance(v, ast.Call) and v.args and isinstance(v.func, ast.Name | ast.Attribute)
        and (v.func.id if isinstance(v.func, ast.Name) else v.func.attr)[:1].isupper()
        and not (ctx.qualname(v.func) or "").startswith("torch.")
        and isinstance(v.args[0], ast.Name | ast.Attribute) and model_like(v.args[0], ctx) for v in values)


def params_handed_values(ctx: ModuleContext) -> set[str]:
    """Names of parameters of this file's functions that some call of the file hands a name or attribute:
    the parameters handed_a_model may call a model (model_like must be asked of them)."""
    def compute() -> set[str]:
        found = set()
        for kind in FUNCS:
            for func in ctx.by_type.get(kind, ()):
                for call in _calls_of(func.name, ctx):
                    for param in _params(func):
                        if isinstance(_argument(call, func, param), ast.Name | ast.Attribute):
                            found.add(param)
        return found
    return ctx.memo(("modes-handed", "params-handed-values"), compute)


def _calls_of(function: str, ctx: ModuleContext) -> list[ast.Call]:
    grouped = ctx.memo(("modes-handed", "calls"), lambda: _group_calls(ctx))
    return grouped.get(function, [])


def _group_calls(ctx: ModuleContext) -> dict[str, list[ast.Call]]:
    grouped: dict[str, list[ast.Call]] = {}
    for call in ctx.by_type.get(ast.Call, ()):
        func = call.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name is not None:
            grouped.setdefault(name, []).append(call)
    return grouped


def _params(func: ast.AST) -> list[str]:
    args = func.args
    return [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]


def _argument(call: ast.Call, func: ast.AST, param: str) -> ast.AST | None:
    """What `call` hands `func`'s parameter `param` (self skipped for a method called on an object), or None."""
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    positional = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    if isinstance(call.func, ast.Attribute) and positional[:1] in (["self"], ["cls"]):
        positional = positional[1:]
    if param in positional and positional.index(param) < len(call.args):
        return call.args[positional.index(param)]
    return None


def _key(expr: ast.AST) -> str | None:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    return ".".join([expr.id, *reversed(parts)]) if isinstance(expr, ast.Name) else None
