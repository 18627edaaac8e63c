"""Where values are put, other than by `name = value` (context.py binds those): tuple targets, attributes of
an object handed in as a parameter, slots of a buffer, modules added to a Sequential, lists changed in place.
Each table is built once per module, on first use, from the nodes the context already grouped by type."""

from __future__ import annotations

import ast

from .parameters import parameter_of
from .traced import position
from .vocabulary import LIST_MUTATIONS, SEQUENTIAL


def unpacked(ctx, scope: ast.AST) -> dict[str, list[tuple[ast.expr, int]]]:
    """`a, b = f(x)` in `scope`: name -> (value, position) for tuple targets whose value is not a literal."""
    def build() -> dict:
        table: dict[ast.AST, dict[str, list]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            if isinstance(node.value, ast.Tuple | ast.List):
                continue  # context.py binds literal tuples element by element
            for target in node.targets:
                if isinstance(target, ast.Tuple | ast.List):
                    names = table.setdefault(ctx.scope_of(node), {})
                    for index, elt in enumerate(target.elts):
                        if isinstance(elt, ast.Starred):
                            break
                        if isinstance(elt, ast.Name):
                            names.setdefault(elt.id, []).append((node.value, index))
        return table

    return ctx.memo(("kinds-unpacked",), build).get(scope, {})


def handed_attribute(ctx, expr: ast.Attribute) -> list[ast.expr]:
    """`obj.head = Head()` in one method and `obj.head(x)` in another, `obj` a parameter of both (a callback
    given the model it trains): the values assigned to that attribute of a parameter so named in this class."""
    base = expr.value
    if not isinstance(base, ast.Name) or base.id == "self" or parameter_of(base, ctx) is None:
        return []

    def build() -> dict:
        table: dict[tuple, list[ast.expr]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id != "self" and parameter_of(target.value, ctx) is not None):
                    key = (ctx.enclosing_class(node), target.value.id, target.attr)
                    table.setdefault(key, []).append(node.value)
        return table

    return ctx.memo(("kinds-handed",), build).get((ctx.enclosing_class(expr), base.id, expr.attr), [])


def filled(ctx, scope: ast.AST, name: str) -> list[ast.expr]:
    """The values stored into slots of `name` in `scope`: `outputs[t] = step` in a decoding loop."""
    def build() -> dict:
        table: dict[tuple, list[ast.expr]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    table.setdefault((ctx.scope_of(node), target.value.id), []).append(node.value)
        return table

    return ctx.memo(("kinds-filled",), build).get((scope, name), [])


def added_modules(ctx, sequential: ast.Call) -> list[ast.expr]:
    """The modules `seq.add_module(name, module)` appends to the Sequential `sequential` builds, in order."""
    def build() -> dict:
        table: dict[ast.Call, list[ast.expr]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            callee = call.func
            if not (isinstance(callee, ast.Attribute) and callee.attr == "add_module" and len(call.args) == 2):
                continue
            built = ctx.resolve(callee.value)
            if isinstance(built, ast.Call) and ctx.call_name(built) == SEQUENTIAL:
                table.setdefault(built, []).append(call.args[1])
        for modules in table.values():
            modules.sort(key=position)  # the index lists calls in walk order, not source order
        return table

    if not ctx.has_text("add_module"):
        return []
    return ctx.memo(("kinds-added",), build).get(sequential, [])


def changed_in_place(ctx, name: ast.Name) -> bool:
    """Whether the list `name` holds is appended to, extended or otherwise changed in its scope."""
    def build() -> set:
        changed = set()
        for call in ctx.by_type.get(ast.Call, ()):
            callee = call.func
            if isinstance(callee, ast.Attribute) and callee.attr in LIST_MUTATIONS and isinstance(callee.value, ast.Name):
                changed.add((ctx.scope_of(call), callee.value.id))
        for node in ctx.by_type.get(ast.AugAssign, ()):
            if isinstance(node.target, ast.Name):
                changed.add((ctx.scope_of(node), node.target.id))
        return changed

    return (ctx.scope_of(name), name.id) in ctx.memo(("kinds-changed-lists",), build)


def appended(ctx, scope: ast.AST, name: str) -> list[ast.expr]:
    """The values `name.append(value)` puts into the list `name` holds in `scope` (outputs of a decoding loop)."""
    def build() -> dict:
        table: dict[tuple, list[ast.expr]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            callee = call.func
            if (isinstance(callee, ast.Attribute) and callee.attr == "append" and isinstance(callee.value, ast.Name)
                    and len(call.args) == 1 and not call.keywords):
                table.setdefault((ctx.scope_of(call), callee.value.id), []).append(call.args[0])
        return table

    if not ctx.has_text(".append("):
        return []
    return ctx.memo(("kinds-appended",), build).get((scope, name), [])


# the attribute that holds the output layer of the models torchvision, timm and pretrained-models build
HEAD_ATTRS = frozenset({"fc", "classifier", "head", "heads", "last_linear", "_fc"})


def replaced_head(ctx, name: ast.Name) -> ast.expr | None:
    """`model.fc = nn.Sequential(nn.Linear(n, 2), nn.Softmax(dim=1))` (or `model.classifier[6] = ...`) before the
    use `name`, `name` holding a model built outside this file (`models.resnet18()`): the new output layer."""
    def build() -> dict:
        table: dict[tuple, list[ast.Assign]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                    target = target.value  # classifier[6] = ...
                if (isinstance(target, ast.Attribute) and target.attr in HEAD_ATTRS
                        and isinstance(target.value, ast.Name)):
                    table.setdefault((ctx.scope_of(node), target.value.id), []).append(node)
        return table

    if not any(map(ctx.has_text, (".fc =", ".classifier", ".head", ".last_linear", "._fc ="))):
        return None
    found = ctx.memo(("kinds-heads",), build).get((ctx.scope_of(name), name.id))
    before = [node for node in found or () if position(node) < position(name)]
    if not before:
        return None
    from .values import reaching_values  # values reads this module's tables

    made = name
    for _ in range(5):  # model = model.to(device): the model before the move
        if isinstance(made, ast.Name):
            reaching = reaching_values(made, ctx)[1]
            made = reaching[0][0] if reaching and len(reaching) == 1 and reaching[0][1] is None else None
        elif isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) and ctx.call_name(made) is None:
            made = made.func.value
        else:
            break
    built = ctx.call_name(made) if isinstance(made, ast.Call) else None
    if built is None or built.startswith("torch.nn.") or built.rsplit(".", 1)[-1] in ctx.classes:
        return None  # a model of this file: its own forward says what it returns
    return max(before, key=position).value


def grown_list(ctx, name: ast.Name, start: ast.List | ast.Tuple) -> list[ast.expr] | None:
    """The elements of the list `name` holds where it is used, grown from `start` by `name.append(x)`,
    `name.extend([...])` or `name += [...]` in its scope (a loop appends each block, then the head): in order of
    the code, or None when it is changed otherwise or the last change sits in a branch the use is not in."""
    from .values import conditional  # values reads this module's tables

    scope = ctx.scope_of(name)
    changes: list[tuple[ast.AST, list[ast.expr]]] = []
    calls, augmented = ctx.memo(("kinds-list-changes",), lambda: _list_changes(ctx))
    for call in calls.get((scope, name.id), ()):
        callee = call.func
        if callee.attr == "append" and len(call.args) == 1:
            changes.append((call, [call.args[0]]))
        elif callee.attr == "extend" and len(call.args) == 1 and isinstance(call.args[0], ast.List | ast.Tuple):
            changes.append((call, list(call.args[0].elts)))
        else:
            return None  # insert, pop, reverse...: the order is not visible
    for node in augmented.get((scope, name.id), ()):
        if not isinstance(node.value, ast.List | ast.Tuple):
            return None
        changes.append((node, list(node.value.elts)))
    changes = sorted((c for c in changes if position(c[0]) < position(name)), key=lambda c: position(c[0]))
    if not changes or conditional(changes[-1][0], name, ctx):
        return None
    grown = list(start.elts)
    for _, elements in changes:
        grown.extend(elements)
    return None if any(isinstance(e, ast.Starred) for e in grown) else grown


def _list_changes(ctx) -> tuple[dict, dict]:
    """`name.method(...)` calls and `name op= value` statements by (scope, name), each in the module's order:
    grown_list is asked about every list a module is built from and read every call of the module for each
    (quadratic: 600 small builders took 2.7 s)."""
    calls: dict[tuple[ast.AST, str], list[ast.Call]] = {}
    for call in ctx.by_type.get(ast.Call, ()):
        callee = call.func
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
            calls.setdefault((ctx.scope_of(call), callee.value.id), []).append(call)
    augmented: dict[tuple[ast.AST, str], list[ast.AugAssign]] = {}
    for node in ctx.by_type.get(ast.AugAssign, ()):
        if isinstance(node.target, ast.Name):
            augmented.setdefault((ctx.scope_of(node), node.target.id), []).append(node)
    return calls, augmented
