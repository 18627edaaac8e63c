"""Per-task losses (MLD001): a loss class handed a dict of losses, one per output (`MultiTaskLoss({"cls":
nn.CrossEntropyLoss(), "attr": build_loss("bce")}, weights)`), whose call applies each to the matching entry of
the model's output dict (`fn(outputs[k], targets[k]) for k, fn in self.losses.items()`). The file of the class
tells the others which argument of its constructor holds the dict (`keyed:<Class>` -> its index); the file that
builds it tells the model's file which entries meet a logit loss (`fed:<Model>/<key>`)."""

from __future__ import annotations

import ast
import os

KEYED = "keyed:"
CALLS = ("__call__", "forward")


def keyed_loss_facts(ctx) -> dict[str, str]:
    """`keyed:<Class>` -> the index of the constructor parameter holding the dict of per-key losses."""
    facts = {}
    for name, cls in ctx.classes.items() if ctx.has_text(".items()") else ():
        index = _keyed_parameter(cls, ctx)
        if index is not None:
            facts[KEYED + name] = str(index)
    return facts


def _keyed_parameter(cls: ast.ClassDef, ctx) -> int | None:
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    init = methods.get("__init__")
    call = next((methods[m] for m in CALLS if m in methods), None)
    if init is None or call is None or len(call.args.args) < 2:
        return None
    outputs = call.args.args[1].arg
    for loop in ast.walk(call):
        if not isinstance(loop, ast.comprehension | ast.For):
            continue
        attr = _items_of_self(loop.iter)
        target = loop.target
        if attr is None or not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                                and all(isinstance(e, ast.Name) for e in target.elts)):
            continue
        key, fn = (e.id for e in target.elts)
        if _applies(call, fn, outputs, key):
            return _stored_parameter(init, attr)
    return None


def _items_of_self(expr: ast.AST) -> str | None:
    """`self.losses.items()` -> "losses"."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "items":
        owner = expr.func.value
        if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
            return owner.attr
    return None


def _applies(method: ast.AST, fn: str, outputs: str, key: str) -> bool:
    """`fn(outputs[key], ...)` somewhere in the method."""
    for node in ast.walk(method):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fn and node.args:
            first = node.args[0]
            if isinstance(first, ast.Subscript) and isinstance(first.value, ast.Name) and first.value.id == outputs \
                    and isinstance(first.slice, ast.Name) and first.slice.id == key:
                return True
    return False


def _stored_parameter(init: ast.FunctionDef, attr: str) -> int | None:
    params = [a.arg for a in init.args.args[1:]]
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params and any(
                isinstance(t, ast.Attribute) and t.attr == attr for t in node.targets):
            return params.index(node.value.id)
    return None


KEYED_CONDITION = "?keyed:"  # a fed fact that holds if the class keys its losses so, and the entry is a logit loss


def keyed_fed(call: ast.Call, cls_name: str, ctx, fed_names, loss_of, logit: frozenset) -> dict[str, str]:
    """`fed:<Model>/<key>` for each entry of a dict of losses handed to the loss class `cls_name` (of another
    file) when `call` computes that loss on a model's output (`criterion(model(x), targets)`): a condition the
    model's file checks (losses_chosen.fed_loss): the class keys its losses by that argument, and the entry is
    a logit loss here (`loss_of` names it) or what a builder of another file returns for its option."""
    if not call.args or not isinstance(call.func, ast.Name | ast.Attribute):
        return {}
    built = ctx.values_of(call.func, at=call)
    if len(built) != 1 or not isinstance(built[0], ast.Call):
        return {}
    where = f"in {os.path.basename(ctx.path)}:{call.lineno}"
    facts: dict[str, str] = {}
    for index, table in enumerate(built[0].args):
        table = ctx.resolve(table) if isinstance(table, ast.Name) else table
        if not isinstance(table, ast.Dict):
            continue
        for key, value in zip(table.keys, table.values, strict=False):
            entry = _entry(value, ctx, loss_of, logit)
            if entry is None or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            for model in fed_names(call.args[0], ctx):
                if "/" not in model and model != "*":
                    facts[f"fed:{model}/{key.value}"] = f"{KEYED_CONDITION}{cls_name}:{index}:{entry}|{where}"
    return facts


def _entry(value: ast.AST, ctx, loss_of, logit: frozenset) -> str | None:
    """`=<loss>` for a logit loss, `<builder>=<OPTION>` for a builder of another file given a string option."""
    loss = loss_of(value, ctx)
    if loss in logit:
        return "=" + loss
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id not in ctx.functions \
            and value.args and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str):
        return f"{value.func.id}={value.args[0].value.upper()}"
    return None


def keyed_loss(project, condition: str, told_table) -> str | None:
    """The logit loss a keyed condition (`?keyed:<Class>:<index>:<entry>`) names, when it holds."""
    cls, index, entry = condition[len(KEYED_CONDITION):].split(":", 2)
    if project.kind_returned_by(KEYED + cls) != index:
        return None
    builder, _, option = entry.partition("=")
    if not builder:
        return option
    return told_table(project.kind_returned_by("builder:" + builder)).get(option)
