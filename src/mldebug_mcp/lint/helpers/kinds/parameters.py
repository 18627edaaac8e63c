"""Parameters and the values handed to them: a parameter's default, the arguments each call of its function
passes, a method or a class-level constant of a class."""

from __future__ import annotations

import ast


def method_of(cls: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method `name` defined in the body of `cls` (context.py uses it too: it cannot import back)."""
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name), None)


def class_constant(cls: ast.ClassDef, name: str) -> ast.expr | None:
    """The value of `NAME = value` in the body of `cls` (read as `self.NAME`), when it is assigned once."""
    values = [n.value for n in cls.body if isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None
              and any(isinstance(t, ast.Name) and t.id == name
                      for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    return values[0] if len(values) == 1 else None


def parameter_of(name: ast.AST, ctx, reassigned: bool = False) -> tuple[ast.AST, int | None, str] | None:
    """(function, position, name) when `name` is a parameter of its function that is never reassigned (with
    `reassigned`, also one that is: the caller's value may still reach the use)."""
    if not isinstance(name, ast.Name):
        return None
    func = ctx.scope_of(name)
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    if ctx.bindings.get(func, {}).get(name.id, None) != [] and not reassigned:
        return None
    positional = [a.arg for a in func.args.posonlyargs + func.args.args]
    if name.id in positional:
        return func, positional.index(name.id), name.id
    if name.id in [a.arg for a in func.args.kwonlyargs]:
        return func, None, name.id
    return None


def parameter_default(name: ast.AST, ctx) -> ast.expr | None:
    """The default value of a parameter never reassigned in its function: `loss_fn=nn.CrossEntropyLoss()`."""
    found = parameter_of(name, ctx)
    if found is None:
        return None
    func, _, arg = found
    args = func.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults,
                        strict=False))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=False) if d is not None})
    return defaults.get(arg)


def call_sites(name: ast.AST, ctx, reassigned: bool = False) -> list[ast.expr]:
    """The arguments the calls of this module pass for the parameter `name` (a function's or a method's; for a
    constructor's, the calls that build the class)."""
    found = parameter_of(name, ctx, reassigned)
    if found is None:
        return []
    func, position, arg = found
    cls = ctx.parents.get(func)
    method = isinstance(cls, ast.ClassDef)
    if method and position is not None:
        position -= 1  # self
    passed = []
    if method and func.name == "__init__":  # a constructor's parameter: what `Trainer(Head(), lr)` hands in
        for call in ctx.memo(("kinds-calls",), lambda: _calls_by_name(ctx)).get(cls.name, ()):
            if isinstance(call.func, ast.Name):
                value = _argument(call, position, arg)
                passed += [value] if value is not None else []
        return passed
    for call in ctx.memo(("kinds-calls",), lambda: _calls_by_name(ctx)).get(func.name, ()):
        on_self = isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
            and call.func.value.id == "self"
        # `trainer = Trainer(...)`; `trainer.train(model)`: the method of an instance built here counts too
        instance = method and not on_self and _on_instance(call, cls, ctx)
        if not instance and (method != on_self
                             or method and not inherits(cls, ctx.enclosing_class(call), ctx)):
            continue
        if not method and func.name not in ctx.functions and not _called_inside(call, ctx.parents.get(func), ctx):
            continue  # a nested function counts only where its enclosing function calls it
        value = _argument(call, position, arg)
        if value is not None:
            passed.append(value)
    return passed


def _called_inside(call: ast.AST, outer: ast.AST | None, ctx) -> bool:
    """`call` lies in the body of the function `outer` (a local helper, `def criterion(logits, y)` in main())."""
    return isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef) and any(a is outer for a in ctx.ancestors(call))


def inherits(cls: ast.ClassDef | None, other: ast.ClassDef | None, ctx, depth: int = 4) -> bool:
    """Whether `cls` is `other` or a subclass of it in this file: a base class's method that calls `self.m(...)`
    runs the subclass's override of `m`."""
    for _ in range(depth):
        if cls is None or other is None:
            return False
        if cls is other:
            return True
        bases = [ctx.classes.get(b.id) for b in cls.bases if isinstance(b, ast.Name)]
        bases = [b for b in bases if b is not None]
        if len(bases) != 1:
            return any(inherits(b, other, ctx, depth - 1) for b in bases)
        cls = bases[0]
    return False


def _on_instance(call: ast.Call, cls: ast.AST, ctx) -> bool:
    """`obj.method(...)` where `obj` holds an instance this module builds of `cls` (not a subclass: unseen)."""
    if not isinstance(call.func, ast.Attribute) or not isinstance(cls, ast.ClassDef) \
            or ctx.classes.get(cls.name) is not cls:
        return False
    return ctx.constructed(call.func.value) == cls.name


def _argument(call: ast.Call, position: int | None, arg: str) -> ast.expr | None:
    """What a call passes for the parameter `arg` (at `position`, self not counted)."""
    value = next((k.value for k in call.keywords if k.arg == arg), None)
    if (value is None and position is not None and 0 <= position < len(call.args)
            and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1])):
        value = call.args[position]
    return value


def handed_to_class(name: ast.AST, ctx) -> list[ast.expr]:
    """A framework hand-off: `compute_loss(self, model, inputs)` in a class this file builds as
    `MyTrainer(model=net, ...)` with an inherited constructor: the framework calls the method with that model."""
    found = parameter_of(name, ctx)
    if found is None or found[1] is None:
        return []
    func, _, arg = found
    cls = ctx.parents.get(func)
    if not isinstance(cls, ast.ClassDef) or method_of(cls, "__init__") is not None or not cls.bases:
        return []
    calls = ctx.memo(("kinds-calls",), lambda: _calls_by_name(ctx)).get(cls.name, ())
    return [k.value for call in calls if isinstance(call.func, ast.Name) for k in call.keywords if k.arg == arg]


def _calls_by_name(ctx) -> dict[str, list[ast.Call]]:
    table: dict[str, list[ast.Call]] = {}
    for call in ctx.by_type.get(ast.Call, ()):
        callee = call.func
        name = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else None
        if name is not None:
            table.setdefault(name, []).append(call)
    return table
