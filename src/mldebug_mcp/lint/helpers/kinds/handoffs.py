"""A model handed to a class or function of another file (`LitModel(MyNet())`, `train(build_model(), ...)`),
whose methods feed it to a loss there: three files, joined by two facts. The file that hands it over tells
`hand:MyNet` -> `@LitModel#0;@LitModel.model` (the parameter it fills, by position and by keyword); the file
whose loss takes `self.model(x)` or `model(x)`, the parameter handed in from outside, tells
`fed:@LitModel#0` and `fed:@LitModel.model`; the file that defines MyNet joins them."""

from __future__ import annotations

import ast
import sys

from .parameters import parameter_of

HAND = "hand:"
SLOT = "@"


def slot_names(name: ast.Name, ctx) -> set[str]:
    """`@LitModel#0`, `@LitModel.model` for the parameter `model` of `LitModel.__init__`; `@train#0`,
    `@train.model` for one of a top-level function `train`: how another file's call fills it."""
    found = parameter_of(name, ctx, reassigned=True)
    if found is None:
        return set()
    func, position, arg = found
    owner = ctx.parents.get(func)
    if isinstance(owner, ast.ClassDef) and func.name == "__init__" and ctx.classes.get(owner.name) is owner:
        callee, position = owner.name, position - 1 if position is not None else None  # self is not handed
    elif isinstance(owner, ast.ClassDef) and ctx.classes.get(owner.name) is owner and not func.name.startswith("_") \
            and not func.decorator_list:  # a trainer's method: `LocalUpdate(...).train(net=model)`
        callee, position = f"{owner.name}.{func.name}", position - 1 if position is not None else None
    elif owner is ctx.tree and ctx.functions.get(func.name) is func:
        callee = func.name
    else:
        return set()
    slots = {f"{SLOT}{callee}.{arg}"}
    if position is not None and position >= 0:
        slots.add(f"{SLOT}{callee}#{position}")
    return slots


def handoff_facts(ctx, model_names) -> dict[str, str]:
    """`hand:<Model>` -> the slots of another file's classes and functions this file hands that model to."""
    told: dict[str, set[str]] = {}
    for simple, given in handed_calls(ctx):
        for slot, value in given:
            if not isinstance(value, ast.Name | ast.Call):
                continue
            for model in model_names(value, ctx):
                if model[:1].isalpha():  # a named model of another file, or a factory: not '*', '~x', '^Base'
                    told.setdefault(HAND + model, set()).add(f"{SLOT}{simple}{slot}")
    return {key: ";".join(sorted(slots)) for key, slots in told.items()}


def handed_calls(ctx) -> list[tuple[str, list[tuple[str, ast.expr]]]]:
    """(callee_slot_owner, given_slots) for each call of this module that hands arguments to another file's
    definition, in the module's order: read by handoff_facts and losses_handed.handed_loss_facts."""
    def compute() -> list[tuple[str, list[tuple[str, ast.expr]]]]:
        found = []
        for call in ctx.by_type.get(ast.Call, ()):
            owner = callee_slot_owner(call, ctx) if call.args or call.keywords else None
            if owner is not None:
                found.append((owner, given_slots(call)))
        return found

    return ctx.memo(("kinds", "handed-calls"), compute)


def given_slots(call: ast.Call) -> list[tuple[str, ast.expr]]:
    """(slot suffix, value) for each argument a call hands over: `#0` by position (a starred one skipped, its
    number kept), `.model` by keyword (not `**kwargs`); the callee's slot is `@<callee><suffix>`."""
    given = [(f"#{i}", a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)]
    return given + [(f".{k.arg}", k.value) for k in call.keywords if k.arg]


def callee_slot_owner(call: ast.Call, ctx) -> str | None:
    """How slots name what a call of another file's definition runs: `train` for `train(...)`, `Trainer` for
    `Trainer(...)`, `LocalUpdate.train` for `local.train(...)` where `local = LocalUpdate(...)` (a method of an
    instance of another file's class, the trainer object of a federated or engine loop)."""
    name = ctx.call_name(call)
    method = None
    if name is None and isinstance(call.func, ast.Attribute) and not call.func.attr.startswith("_") \
            and _may_hold_instance(call.func.value, ctx):
        name, method = ctx.constructed(call.func.value) or _element_class(call.func.value, ctx), call.func.attr
    if name is None or "." not in name or name.partition(".")[0] in NO_TRAINING_SLOTS:
        return None
    simple = name.rsplit(".", 1)[-1]
    if simple in ctx.classes or simple in ctx.functions or (method is not None and not simple[:1].isupper()):
        return None
    return f"{simple}.{method}" if method is not None else simple


# Modules whose functions never train a model handed to them (`warnings.warn(...)`, `typing.cast(Net, m)`,
# `copy.deepcopy(model)`): in library code most calls with arguments are theirs, and none fills a slot.
NO_TRAINING_SLOTS = frozenset({"torch", "typing_extensions", *sys.stdlib_module_names})


def _element_class(receiver: ast.AST, ctx) -> str | None:
    """The class of the objects a list holds, for one of them: `workers[i]`, or `w` of `for w in workers`, where
    `workers = [Worker(i) for i in ...]` (or a list of `Worker(...)` calls written out)."""
    container = receiver.value if isinstance(receiver, ast.Subscript) else None
    node = receiver
    while container is None and isinstance(receiver, ast.Name):
        node = ctx.parents.get(node)
        if node is None or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module):
            return None
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == receiver.id:
            container = node.iter
    listed = ctx.resolve(container)
    calls = [listed.elt] if isinstance(listed, ast.ListComp) else listed.elts if isinstance(listed, ast.List) else []
    names = {ctx.call_name(c) if isinstance(c, ast.Call) else None for c in calls}
    return names.pop() if len(names) == 1 else None


def _may_hold_instance(receiver: ast.AST, ctx) -> bool:
    """A cheap first look: the receiver is a name this module assigns a call of another file's class to (or a
    list of them, or an element of one), or such a call itself. Most method calls (tensors, optimisers) are not."""
    if isinstance(receiver, ast.Call):
        return True
    base = receiver.value if isinstance(receiver, ast.Subscript) else receiver
    return isinstance(base, ast.Name) and base.id in ctx.memo(("kinds", "instance-names"), lambda: _instance_names(ctx))


def _instance_names(ctx) -> frozenset[str]:
    """Names assigned `Class(...)` (a capitalised callee of another module) or a list of such calls, and the loop
    variables that walk such a list."""
    def builds(value: ast.AST) -> bool:
        if isinstance(value, ast.ListComp):
            value = value.elt
        elif isinstance(value, ast.List) and value.elts:
            value = value.elts[0]
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda"):
            value = value.func.value
        name = ctx.call_name(value) if isinstance(value, ast.Call) else None
        return bool(name) and "." in name and name.rsplit(".", 1)[-1][:1].isupper() and not name.startswith("torch.")

    found = {t.id for node in ctx.by_type.get(ast.Assign, ()) if builds(node.value)
             for t in node.targets if isinstance(t, ast.Name)}
    found |= {node.target.id for node in ctx.by_type.get(ast.For, ()) if isinstance(node.target, ast.Name)
              and isinstance(node.iter, ast.Name) and node.iter.id in found}
    return frozenset(found)
