"""Losses chosen away from the call that computes them (MLD001). A loss kept in `self.<attr>` by a base class: `self.criterion = nn.BCEWithLogitsLoss()`, or
`self.criterion = self._build_criterion(self.loss_type)` where the builder picks a loss by a string (an
if-chain on it, or a dict of losses indexed by it), and a subclass, of this file or another, sets that string
(`self.loss_type = 'CL'`) and calls `self.criterion(...)` without assigning it. The file of the base class
tells the others: `lossattr:<attr>` -> the loss's qualified name, or `choice:<option>:<KEY>=<loss>;...`.
A builder function (`get_loss("bce")`: `builder:<name>`), and a loss class whose forward hands its prediction
to a logit loss (a focal loss on binary_cross_entropy_with_logits: `wraps:<Class>`)."""

from __future__ import annotations

import ast
import re

from .kinds import class_constant, method_of
from .losses_keyed import KEYED_CONDITION, keyed_loss

ATTR = "lossattr:"
CHOICE = "choice:"


def attr_loss_facts(ctx) -> dict[str, str]:
    """`lossattr:<attr>` for each `self.<attr>` of a class of this file that holds a known loss or a chosen one."""
    def compute() -> dict[str, str]:
        facts: dict[str, str] = {}
        for attrs in ctx.class_attrs.values():
            for attr, values in attrs.items():
                for value in values:
                    told = _describe(value, ctx)
                    if told:
                        facts.setdefault(ATTR + attr, told)
        return facts

    return ctx.memo(("losses", "attr-facts"), compute)


BUILDER = "builder:"  # builder:<function> -> 'KEY=loss;...' ('*=loss' for a builder that always returns one)


def builder_facts(ctx) -> dict[str, str]:
    """`builder:<function>` for each top-level function of this file that returns a loss, picked by a string."""
    def compute() -> dict[str, str]:
        facts = {}
        if not any(map(ctx.has_text, LOSS_NAME_PARTS)):  # a builder returns a loss this file names
            return facts
        for name, func in ctx.functions.items():
            table = _builder_table(func, ctx)
            if table:
                facts[BUILDER + name] = ";".join(f"{k}={v}" for k, v in sorted(table.items()))
        return facts

    return ctx.memo(("losses", "builder-facts"), compute)


def built_loss(call: ast.AST, name: str, ctx) -> str | None:
    """The loss `get_loss("bce")` returns, when `name` (its qualified name) is a builder of this file or another."""
    short = name.rsplit(".", 1)[-1]
    if short in ctx.functions:
        table = _builder_table(ctx.functions[short], ctx)
    else:
        told = ctx.project.kind_returned_by(BUILDER + short) if ctx.project is not None and "." in name else None
        table = _told_table(told)
    if not table or not isinstance(call, ast.Call):
        return None
    first = call.args[0] if call.args else next((k.value for k in call.keywords), None)
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return table.get(first.value.upper())
    return table.get("*")


def _told_table(told: str | None) -> dict[str, str]:
    """A builder or choice fact's 'KEY=loss;...' as a dict."""
    return dict(e.split("=", 1) for e in told.split(";") if "=" in e) if told else {}


def _builder_table(func: ast.AST, ctx) -> dict[str, str]:
    from .losses import loss_source

    def compute() -> dict[str, str]:
        table = _choices(func, ctx)
        if table:
            return table
        returns = [r.value for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
        found = {getattr(loss_source(r, ctx), "name", None) for r in returns if isinstance(r, ast.Call)}
        single = found.pop() if len(found) == 1 and len(returns) else None
        return {"*": single} if single and _is_loss(single) else {}

    return ctx.memo_recursive(("losses", "builder", func), compute, {})


def chosen_loss(call: ast.Call, ctx) -> str | None:
    """The loss `self.<attr>(...)` computes when this class never assigns the attribute: what a base class of
    this file or another keeps there, picked by the string this class sets when the base chooses by one."""
    callee = call.func
    if isinstance(callee, ast.Attribute) and callee.attr == "forward":
        callee = callee.value
    if not (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self"):
        return None
    cls = ctx.enclosing_class(call)
    if cls is None or ctx.class_attrs.get(cls.name, {}).get(callee.attr):
        return None  # assigned here: the ordinary tracing answers
    told = attr_loss_facts(ctx).get(ATTR + callee.attr)
    if told is None and ctx.project is not None:
        told = ctx.project.kind_returned_by(ATTR + callee.attr)
    if told is None or not told.startswith(CHOICE):
        return told
    option, _, table = told[len(CHOICE):].partition(":")
    choices = _told_table(table)
    keys = {v.value.upper() for v in ctx.class_attrs.get(cls.name, {}).get(option, [])
            if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    picked = {choices.get(k) for k in keys}
    return picked.pop() if len(picked) == 1 else None


def _describe(value: ast.AST, ctx) -> str | None:
    from .losses import loss_source  # losses imports this module

    if not isinstance(value, ast.Call):
        return None
    builder = _local_function(value, ctx)
    if builder is None:
        source = loss_source(value, ctx)
        return source.name if source is not None and _is_loss(source.name) else None
    table = _choices(builder, ctx)
    if not table or not value.args:
        return None
    option = value.args[0]
    if isinstance(option, ast.Constant) and isinstance(option.value, str):
        return table.get(option.value.upper())
    if isinstance(option, ast.Attribute) and isinstance(option.value, ast.Name) and option.value.id == "self":
        return CHOICE + option.attr + ":" + ";".join(f"{k}={v}" for k, v in sorted(table.items()))
    return None


def _local_function(call: ast.Call, ctx):
    func = call.func
    if isinstance(func, ast.Name) and func.id in ctx.functions:
        return ctx.functions[func.id]
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(call)
        for _ in range(4):  # the method may be inherited from a base class of this file
            found = method_of(cls, func.attr) if cls is not None else None
            if found is not None:
                return found
            bases = [b.id for b in cls.bases if isinstance(b, ast.Name)] if cls is not None else []
            cls = ctx.classes.get(bases[0]) if bases else None
    return None


def _choices(func: ast.AST, ctx) -> dict[str, str]:
    """KEY -> loss for a builder that picks a loss by its first parameter: `if name.upper() == 'CL': criterion =
    nn.BCEWithLogitsLoss()` (or `return ...`), or `return LOSSES[name]()` with LOSSES a dict of losses."""
    from .losses import loss_source

    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    params = params[1:] if params[:1] == ["self"] else params
    if not params:
        return {}
    param, table = params[0], {}
    # only an `if` comparing the parameter with a string, or a `return TABLE[param]`, adds an entry: a function
    # without one (almost every function) needs no walk
    if not any(_compared_key(n.test, param) for n in ctx.within(ast.If, func)) and not any(
            _looked_up(n, param) for n in ctx.within(ast.Return, func)):
        return table
    for node in ast.walk(func):
        if isinstance(node, ast.If):
            key = _compared_key(node.test, param)
            for stmt in node.body if key else ():
                value = stmt.value if isinstance(stmt, ast.Assign | ast.Return) else None
                source = loss_source(value, ctx) if value is not None else None
                if source is not None and _is_loss(source.name):
                    table[key] = source.name
                    break
        elif isinstance(node, ast.Return) and node.value is not None:
            lookup = node.value.func if isinstance(node.value, ast.Call) else node.value
            if isinstance(lookup, ast.Subscript) and isinstance(lookup.slice, ast.Name) and lookup.slice.id == param:
                entries = ctx.resolve(lookup.value)
                if not isinstance(entries, ast.Dict) and isinstance(lookup.value, ast.Attribute):
                    owner = ctx.enclosing_class(func)  # a table kept on the class: LOSSES = {...}
                    entries = class_constant(owner, lookup.value.attr) if owner is not None else None
                for k, v in zip(entries.keys, entries.values, strict=False) if isinstance(entries, ast.Dict) else ():
                    source = loss_source(v, ctx)
                    if isinstance(k, ast.Constant) and isinstance(k.value, str) and source is not None \
                            and _is_loss(source.name):
                        table[k.value.upper()] = source.name
    return table


def _looked_up(node: ast.Return, param: str) -> bool:
    """`return TABLE[param]` or `return TABLE[param](...)`."""
    if node.value is None:
        return False
    lookup = node.value.func if isinstance(node.value, ast.Call) else node.value
    return isinstance(lookup, ast.Subscript) and isinstance(lookup.slice, ast.Name) and lookup.slice.id == param


def _compared_key(test: ast.AST, param: str) -> str | None:
    """'CL' for `name == 'CL'`, `name.upper() == 'cl'`, `'CL' == name`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    sides = [test.left, test.comparators[0]]
    constants = [s.value for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    others = [s for s in sides if not isinstance(s, ast.Constant)]
    if len(constants) != 1 or len(others) != 1:
        return None
    mentions = any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(others[0]))
    return constants[0].upper() if mentions else None


LOSS_NAME_PARTS = ("Loss", "_loss", "cross_entropy", "_with_logits")  # what every name _is_loss accepts contains


def _is_loss(name: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    return short.endswith(LOSS_NAME_PARTS) or short.startswith("cross_entropy")


CONDITIONAL = "?"  # a fed fact that holds if the loss class named before '|' wraps a logit loss (another file says)
LOSS_CLASS = re.compile(r"(?i)(loss|criterion)")  # WeightedFocalLoss, compute_loss, bce_criterion


def fed_loss(project, name: str, scopes: tuple[str, ...] | None = None) -> str | None:
    """Where another file's logit loss takes the output of the model `name` (`fed:<name>`), as 'BCEWithLogitsLoss
    in train.py:12'; a loss class of a third file counts when that file says it wraps a logit loss. Told to this
    file, or to the file of `scopes` (helpers/project_reach.definer_scopes)."""
    where = project.fed_to(name, scopes)
    if where is not None and where.startswith("slot:"):  # the loss is handed in too: known with the model only
        return None
    if where is not None and where.startswith(KEYED_CONDITION):  # one entry of a dict of per-output losses
        condition, _, where = where.partition("|")
        loss = keyed_loss(project, condition, _told_table)
        return f"{loss.rsplit('.', 1)[-1]} {where}" if loss and _logit(loss) else None
    if where is None or not where.startswith(CONDITIONAL):
        return where
    cls, _, where = where[len(CONDITIONAL):].partition("|")
    wrapped = project.kind_returned_by(WRAPS + cls) or _always_built_logit_loss(project, cls)
    return f"{where} (built on {wrapped.rsplit('.', 1)[-1]})" if wrapped else None


def _logit(loss: str) -> bool:
    from .losses import LOGIT_FUNCTIONS, LOGIT_LOSSES  # losses imports this module

    return loss in LOGIT_LOSSES or loss in LOGIT_FUNCTIONS


def _always_built_logit_loss(project, builder: str) -> str | None:
    """The logit loss a builder function of another file always returns (`criterion = build_criterion(cfg)`
    with `return nn.CrossEntropyLoss(...)` in losses.py), told as `builder:<name>` -> `*=<loss>`."""
    from .losses import LOGIT_FUNCTIONS, LOGIT_LOSSES  # losses imports this module

    always = _told_table(project.kind_returned_by(BUILDER + builder)).get("*")
    return always if always in LOGIT_LOSSES or always in LOGIT_FUNCTIONS else None


WRAPS = "wraps:"  # project-index key: wraps:<LossClass> -> the logit loss its forward hands its input to


def wrapped_logit_loss(class_name: str, ctx) -> str | None:
    """The logit loss a loss class or loss function (of this file, else told by another) feeds its prediction
    to, unchanged in meaning (`F.binary_cross_entropy_with_logits(inputs, targets)` in its forward or body)."""
    owner = ctx.classes.get(class_name) or ctx.functions.get(class_name)
    if owner is not None:
        return ctx.memo(("losses", "wraps", class_name), lambda: _wraps(owner, ctx))
    if ctx.project is None or not LOSS_CLASS.search(class_name):
        return None
    return ctx.project.kind_returned_by(WRAPS + class_name)


def _wraps(owner: ast.AST, ctx) -> str | None:
    forward = method_of(owner, "forward") if isinstance(owner, ast.ClassDef) else owner
    params = [a.arg for a in forward.args.posonlyargs + forward.args.args] if forward is not None else []
    params = params[1:2] if isinstance(owner, ast.ClassDef) else params[:1]
    if not params:
        return None
    # the logit losses called on the parameter (most classes and functions call none); of several, the first
    # the walk of forward meets
    found = {call: name for call in ctx.within(ast.Call, forward) if (name := _logit_call_of(call, params[0], ctx))}
    if len(found) > 1:
        return next((found[node] for node in ast.walk(forward) if node in found), None)
    return next(iter(found.values()), None) or _own_activation(forward, params[0], ctx)


# What a loss that squashes its own input first is said to be built on (helpers/losses.logit_loss takes it for a
# logit loss: like BCEWithLogitsLoss, it expects raw scores). Not torch names: no rule reads them as a loss call.
OWN_ACTIVATIONS = {
    "torch.sigmoid": "its own sigmoid", "torch.nn.functional.sigmoid": "its own sigmoid",
    "torch.softmax": "its own softmax", "torch.nn.functional.softmax": "its own softmax",
}
SELF_ACTIVATING = frozenset(OWN_ACTIVATIONS.values())


def _own_activation(forward: ast.AST, param: str, ctx) -> str | None:
    """`inputs = torch.sigmoid(inputs)` as a statement of the loss's own body (not under a condition): the Dice
    and Dice-BCE losses segmentation code copies around expect logits, so a model ending in a sigmoid is squashed
    twice."""
    for statement in getattr(forward, "body", ()):
        value = statement.value if isinstance(statement, ast.Assign) else None
        if not isinstance(value, ast.Call) or not value.args:
            continue
        argument = value.args[0]
        if isinstance(argument, ast.Name) and argument.id == param and ctx.call_name(value) in OWN_ACTIVATIONS:
            return OWN_ACTIVATIONS[ctx.call_name(value)]
    return None


def _logit_call_of(call: ast.Call, param: str, ctx) -> str | None:
    """The logit loss `call` computes when its prediction is `param` (what _wraps looks for), else None."""
    from .losses import (
        LOGIT_FUNCTIONS,
        LOGIT_LOSSES,
        loss_call_source,
        loss_inputs,
        strip_shape_ops,
    )

    source = loss_call_source(call, ctx)
    if source is None or (source.name not in LOGIT_FUNCTIONS and source.name not in LOGIT_LOSSES):
        return None
    inputs = (strip_shape_ops(i, ctx) for i in loss_inputs(call))
    return source.name if any(isinstance(i, ast.Name) and i.id == param for i in inputs) else None
