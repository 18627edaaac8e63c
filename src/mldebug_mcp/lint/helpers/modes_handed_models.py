"""What a value is, told by what the file does with it rather than by its name (MLD020-MLD022, issue 17):
a parameter every call of its function hands a model (`val(net, loader)` makes val's first parameter a
model, whatever it is called), and what a module-only statement is applied to (`x.to(device)` as a statement
moves in place: only a module does; `x.eval()`). Also the calls of the module by callee name
(calls_by_ident), which the mode rules share.

Kept apart from evaluation.py, which asks these through `model_like` (passed in: no import cycle)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..context import ModuleContext
from .graph import callee
from .kinds import parameter_of

# a tensor's .to()/.cuda() returns a copy: as a bare statement only a module's moves anything
IN_PLACE_MOVES = {"to", "cuda", "cpu"}


def module_statement_owners(ctx: ModuleContext) -> set[str]:
    """The keys of what a statement treats as a module: `net.to(device)` / `net.cuda()` whose result is
    discarded, `net.eval()` (no arguments), and `net.train()` beside another's eval(). Asked of nearly every
    module: the statements are walked, and the calls only where the code says `eval()`."""
    def compute() -> set[str]:
        calls = [s.value for s in ctx.by_type.get(ast.Expr, ()) if isinstance(s.value, ast.Call)
                 and isinstance(s.value.func, ast.Attribute) and s.value.func.attr in IN_PLACE_MOVES]
        if ctx.has_text("eval()"):
            calls += [c for c in ctx.by_type.get(ast.Call, ()) if isinstance(c.func, ast.Attribute)
                      and c.func.attr == "eval" and not c.args and not c.keywords]
        keys = {key_of(c.func.value) for c in calls}
        if calls and ctx.has_text(".train()"):
            keys |= _trained_beside_evaluated(calls, ctx)
        return {k for k in keys if k is not None and k != "self"}
    return ctx.memo(("modes-handed", "statement-owners"), compute)


def _trained_beside_evaluated(calls: list[ast.Call], ctx: ModuleContext) -> set[str | None]:
    """`student.train()` in a scope that also calls `teacher.eval()` (one of `calls`): the author switches two
    modules by name (a trainer's or a tokenizer's train(), alone, is no such switch)."""
    scopes = {ctx.scope_of(c) for c in calls if c.func.attr == "eval"}
    return {key_of(c.func.value) for c in calls_by_ident(ctx).get("train", ()) if isinstance(c.func, ast.Attribute)
            and not c.args and not c.keywords
            and isinstance(ctx.parent(c), ast.Expr) and ctx.scope_of(c) in scopes}


def handed_a_model(name: ast.Name, ctx: ModuleContext, model_like: Callable[[ast.AST, ModuleContext], bool]) -> bool:
    """A parameter of the function around `name`, never rebound there, that every call of that function in
    this file (at least one) hands a model: `val(net, loader)` -> val(v1, v2)'s v1."""
    scope = _function_of_parameter(name, ctx)
    calls = _outside_calls(scope, ctx) if scope is not None else []
    if not calls:
        return False
    for call in calls:
        argument = _argument(call, scope, name.id)
        if not isinstance(argument, ast.Name | ast.Attribute) or not model_like(argument, ctx) or _wrapped(
                argument, ctx, model_like):
            return False
    return True


def _outside_calls(scope: ast.AST, ctx: ModuleContext) -> list[ast.Call]:
    """The calls of the function `scope` from outside it, once per function."""
    def compute() -> list[ast.Call]:
        # a method is called on an object, a function by its name (a function and a method may share a name)
        kind = ast.Attribute if isinstance(ctx.parent(scope), ast.ClassDef) else ast.Name
        return [c for c in calls_by_ident(ctx).get(scope.name, ())
                if ctx.scope_of(c) is not scope and isinstance(c.func, kind)]
    return ctx.memo(("modes-handed", "outside-calls", scope), compute)


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


def may_be_handed(name: ast.Name, ctx: ModuleContext) -> bool:
    """Whether handed_a_model may hold for `name`: a parameter of a function (not a dunder) that the file
    calls from outside itself (what handed_a_model needs first; a cheap test per name, model_like answers)."""
    scope = _function_of_parameter(name, ctx, reassigned=True)  # rebound or not: handed_a_model tells
    return scope is not None and bool(_outside_calls(scope, ctx))


def _function_of_parameter(name: ast.Name, ctx: ModuleContext, reassigned: bool = False) -> ast.AST | None:
    """The function whose parameter `name` is (never rebound there unless `reassigned`), or None; None for a
    dunder too (`__init__(self, m)` is called through the class, not by name)."""
    if name.id not in _param_names(ctx):
        return None  # most callees are builtins and imports: no parameter of that name
    found = parameter_of(name, ctx, reassigned=reassigned)
    return None if found is None or found[0].name.startswith("__") else found[0]


_PARAM_NAMES = ("modes-handed", "param-names")


def _param_names(ctx: ModuleContext) -> set[str]:
    """The names of the module's parameters (of any def or lambda); asked of nearly every callee."""
    found = ctx._memo.get(_PARAM_NAMES)
    if found is None:
        found = ctx.memo(_PARAM_NAMES, lambda: {a.arg for a in ctx.by_type.get(ast.arg, ())})
    return found


def calls_by_ident(ctx: ModuleContext) -> dict[str, list[ast.Call]]:
    """The calls of the module by the callee's last name (`val(...)`, `self.val(...)` under "val"; "" for
    any other callee), built once per module. MLD020-MLD023 and their helpers share it; it lives here
    because evaluation.py imports this module, which therefore imports no other mode helper."""
    def group() -> dict[str, list[ast.Call]]:
        grouped: dict[str, list[ast.Call]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            grouped.setdefault(callee(call.func), []).append(call)
        return grouped
    return ctx.memo(("mld020", "calls_by_ident"), group)


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


def key_of(expr: ast.AST) -> str | None:
    """`self.model.module` for a chain of attributes on a name; None for anything else (the key the mode helpers
    share: this module is the lowest of them, so evaluation.py and modes.py take it from here)."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    return ".".join([expr.id, *reversed(parts)]) if isinstance(expr, ast.Name) else None
