"""Losses met away from the usual call shape (MLD001): a base class's step that hands `self(x)` to
`self.criterion`, which a subclass of another file sets and whose forward it overrides; and a prediction
handed as `logits=` (`ce_loss(logits=out, labels=y)` of a framework's loss, `Categorical(logits=...)`): the
keyword says the callee expects raw scores, whatever it is."""

from __future__ import annotations

import ast
import os

from . import kinds
from .kinds.handoffs import SLOT, handed_calls
from .losses_handed import LOSS_FOR

# estimators that train the module they are handed with a default loss, called as criterion(module(X), y):
# skorch's nets (NeuralNetClassifier takes the log of the module's output when the criterion is NLLLoss: a
# softmax module is right there) and skada's deep domain-adaptation estimators (skorch nets whose base
# criterion defaults to CrossEntropyLoss)
FRAMEWORK_NETS = {
    "skorch.NeuralNetClassifier": "torch.nn.NLLLoss", "skorch.classifier.NeuralNetClassifier": "torch.nn.NLLLoss",
    "skorch.NeuralNetBinaryClassifier": "torch.nn.BCEWithLogitsLoss",
    "skorch.classifier.NeuralNetBinaryClassifier": "torch.nn.BCEWithLogitsLoss",
    "skorch.NeuralNet": None, "skorch.net.NeuralNet": None,
    **{f"skada.deep.{name}": "torch.nn.CrossEntropyLoss" for name in (
        "DeepCoral", "DAN", "DANN", "CDAN", "MCC", "MDD", "SPA", "DeepJDOT", "MFSAN", "SourceOnly", "TargetOnly")},
}
# keywords under which a framework or a base class is handed the loss, and the model it will feed
LOSS_KEYWORDS = frozenset({"criterion", "loss", "loss_fn", "loss_func", "loss_function", "loss_fct",
                           "base_criterion"})
MODEL_KEYWORDS = frozenset({"module", "model", "net", "network"})
SELF_LOSS = "self:"  # a fed fact that holds if the subclass keeps a logit loss in the attribute named before '|'
KEYWORD = "logits="  # a fed fact from a `logits=` keyword: only probabilities (softmax, sigmoid) are wrong there
LOSS_ATTR = ("loss", "criterion", "Loss", "Criterion")


def subclass_fed(call: ast.Call, ctx, facts: dict[str, str]) -> dict[str, str]:
    """`self.criterion(self.forward(x), y)` in a base class that never sets `criterion`: a subclass (of another
    file) sets it and overrides forward. Told as `fed:^Base` -> `self:criterion|criterion in base.py:12`, which
    that subclass's file resolves with its own attribute."""
    from .losses import loss_inputs

    callee = call.func
    if not (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self"
            and any(part in callee.attr for part in LOSS_ATTR)):
        return {}
    slot = _kept_parameter(callee, ctx)
    where = f"{SELF_LOSS}{callee.attr}{slot}|{callee.attr} in {os.path.basename(ctx.path)}:{call.lineno}"
    told = {}
    for arg in loss_inputs(call):
        for name in kinds.fed_names(arg, ctx):
            if name.startswith(kinds.SUBCLASS) and kinds.FED + name not in facts:
                told[kinds.FED + name] = where
    return told


def _kept_parameter(attr: ast.Attribute, ctx) -> str:
    """`@compile.loss` when the base class keeps in `self.<attr>` the parameter `loss` of its method `compile`
    (`self.loss_fn = loss.to(device) if isinstance(loss, nn.Module) else loss`): a Keras-like wrapper whose
    subclass's callers hand the loss in (`model.compile(loss=nn.BCEWithLogitsLoss())`, told as lossfor:)."""
    values = ctx.values_of(attr)
    value = values[0] if len(values) == 1 else None
    if isinstance(value, ast.IfExp):
        sides = {ast.unparse(_unmoved(side)) for side in (value.body, value.orelse)}
        value = _unmoved(value.body) if len(sides) == 1 else None
    value = _unmoved(value) if value is not None else None
    method = ctx.enclosing(value, (ast.FunctionDef,)) if isinstance(value, ast.Name) else None
    if method is None or value.id not in {a.arg for a in method.args.args + method.args.kwonlyargs}:
        return ""
    positional = [a.arg for a in method.args.args[1:]]  # after self: `model.configure(nn.CrossEntropyLoss())`
    at = f",{method.name}#{positional.index(value.id)}" if value.id in positional else ""
    return f"@{method.name}.{value.id}{at}"


def _unmoved(value: ast.expr) -> ast.expr:
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda"):
        value = value.func.value
    return value


def subclass_loss(where: str, cls: ast.ClassDef, ctx) -> str | None:
    """A `self:<attr>|...` fact resolved for the subclass `cls`: where its base class's step computes the loss,
    when `cls` keeps a logit loss in that attribute (`self.criterion = nn.CrossEntropyLoss()`)."""
    from .losses import LOGIT_FUNCTIONS, LOGIT_LOSSES, loss_source

    attr, _, told = where[len(SELF_LOSS):].partition("|")
    attr, _, slot = attr.partition("@")
    values = ctx.class_attrs.get(cls.name, {}).get(attr, [])
    found = {getattr(loss_source(v, ctx), "name", None) for v in values}
    if not values and slot and ctx.project is not None:  # kept from a parameter: the loss callers hand to it
        found = {ctx.project.kind_returned_by(f"{LOSS_FOR}{SLOT}{cls.name}.{s}")
                 for s in slot.split(",")} - {None}
    if len(found) != 1 or not found <= (LOGIT_LOSSES | LOGIT_FUNCTIONS):
        return None
    return told.replace(attr, found.pop().rsplit(".", 1)[-1], 1)


def logits_keyword(call: ast.Call) -> ast.expr | None:
    """The value a call is handed as `logits=`."""
    return next((k.value for k in call.keywords if k.arg == "logits"), None)


def callee_name(call: ast.Call, ctx) -> str:
    """What to call the callee in a message: the class that built it (`CrossEntropyLossNM`), else its name."""
    from .losses import loss_call_source

    source = loss_call_source(call, ctx)
    if source is not None:
        return source.name.rsplit(".", 1)[-1]
    return ast.unparse(call.func)[:40]


def keyword_fed(call: ast.Call, ctx) -> dict[str, str]:
    """`fed:<Model>` -> `logits=CrossEntropyLossNM in train.py:14` for a model of another file handed as logits=."""
    value = logits_keyword(call)
    if value is None:
        return {}
    where = f"{KEYWORD}{callee_name(call, ctx)} in {os.path.basename(ctx.path)}:{call.lineno}"
    return {kinds.FED + name: where for name in kinds.fed_names(value, ctx) if name[:1] not in (kinds.ANY_MODEL, "~")}


def framework_fed(call: ast.Call, ctx) -> dict[str, str]:
    """`fed:<Model>` for a model class of another file handed to a framework estimator whose loss (given, or its
    default) expects logits: `DeepCoral(model, ...)`, `NeuralNetClassifier(Net, criterion=nn.CrossEntropyLoss)`."""
    from .losses import LOGIT_FUNCTIONS, LOGIT_LOSSES, loss_source

    net = ctx.call_name(call)
    if net not in FRAMEWORK_NETS:
        return {}
    module = next((k.value for k in call.keywords if k.arg in MODEL_KEYWORDS), call.args[0] if call.args else None)
    given = next((k.value for k in call.keywords if k.arg in LOSS_KEYWORDS), None)
    loss = getattr(loss_source(given, ctx), "name", None) if given is not None else FRAMEWORK_NETS[net]
    if module is None or isinstance(module, ast.Starred) or not (loss in LOGIT_LOSSES or loss in LOGIT_FUNCTIONS):
        return {}
    name = ctx.qualname(module) if isinstance(module, ast.Name | ast.Attribute) else None
    simple = name.rsplit(".", 1)[-1] if name else ""
    if simple[:1].isupper() and simple not in ctx.classes:  # the class itself, imported
        names = {simple}
    else:  # an instance: what calling it runs
        names = kinds.fed_names(ast.Call(func=module, args=[], keywords=[]), ctx)
    where = f"{loss.rsplit('.', 1)[-1]} in {os.path.basename(ctx.path)}:{call.lineno}"
    return {kinds.FED + n: where for n in names if n[:1] not in (kinds.ANY_MODEL, "~", kinds.SUBCLASS)}


SLOT_LOSS = "slot:"  # a fed fact whose loss is handed in too: `train(model, criterion, ...)` of an engine file
HAND_LOSS = "handloss:"  # handloss:@train#1 -> the loss a file hands to that slot of another file's function


def slot_fed(call: ast.Call, ctx) -> dict[str, str]:
    """`criterion(model(x), y)` in `def train(model, criterion, ...)` that no call here fills: told as
    `fed:@train#0` -> `slot:@train#1,@train.criterion|criterion in engine.py:12`, joined by the model's file
    with what the caller's file hands to that slot (`handloss:@train#1`)."""
    from .losses import loss_inputs

    callee = call.func
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self":
        kept = ctx.values_of(callee)  # self.criterion = criterion in __init__
        callee = kept[0] if len(kept) == 1 else None
    if not isinstance(callee, ast.Name) or kinds.call_sites(callee, ctx, reassigned=True):
        return {}
    slots = kinds.slot_names(callee, ctx)
    if not slots:
        return {}
    where = f"{SLOT_LOSS}{','.join(sorted(slots))}|{callee.id} in {os.path.basename(ctx.path)}:{call.lineno}"
    return {kinds.FED + name: where for arg in loss_inputs(call) for name in kinds.fed_names(arg, ctx)
            if name[:1] not in (kinds.ANY_MODEL, "~")}


def loss_handoff_facts(ctx) -> dict[str, str]:
    """`handloss:ConvNet|@train#1` -> `torch.nn.CrossEntropyLoss`: the loss this file hands to a slot of another
    file's function in the same call as the model (`train(ConvNet(), nn.CrossEntropyLoss(), ...)`)."""
    from .losses import loss_source

    told = {}
    for simple, given in handed_calls(ctx):
        if "." in simple:  # a method of an instance (`trainer.fit(...)`): not told here
            continue
        losses, models = {}, set()
        for slot, value in given:
            if isinstance(value, ast.Name | ast.Call | ast.Attribute):
                loss = loss_source(value, ctx)
                if loss is not None and (loss.name.startswith("torch.nn") or _project_loss_class(loss.name)):
                    losses[f"{kinds.SLOT}{simple}{slot}"] = loss.name
                elif isinstance(value, ast.Name | ast.Call):
                    models |= {m for m in kinds.model_names(value, ctx) if m[:1].isalpha()}
        for model in models:
            for slot, loss in losses.items():
                told[f"{HAND_LOSS}{model}|{slot}"] = loss
    return told


def resolve_slot_loss(where: str, model: str, project) -> str | None:
    """A `slot:...` fed fact resolved for `model`: the logit loss a file hands to one of those slots in the call
    that hands it `model` (or a loss class of the project that its file says wraps one), else None."""
    from .losses import LOGIT_FUNCTIONS, LOGIT_LOSSES
    from .losses_chosen import WRAPS

    slots, _, told = where[len(SLOT_LOSS):].partition("|")
    attr = told.split(" ", 1)[0]
    for slot in slots.split(","):
        loss = project.kind_returned_by(f"{HAND_LOSS}{model}|{slot}")
        if loss in LOGIT_LOSSES or loss in LOGIT_FUNCTIONS:
            return told.replace(attr, loss.rsplit(".", 1)[-1], 1)
        short = (loss or "").rsplit(".", 1)[-1]
        wrapped = project.kind_returned_by(WRAPS + short) if short and not loss.startswith("torch.") else None
        if wrapped:
            return f"{told.replace(attr, short, 1)} (built on {wrapped.rsplit('.', 1)[-1]})"
    return None


def _project_loss_class(name: str) -> bool:
    """A loss class of the project (`DiceBCELoss` from utils.metrics): its file may say it wraps a logit loss."""
    from .losses_chosen import LOSS_CLASS

    short = name.rsplit(".", 1)[-1]
    return short[:1].isupper() and bool(LOSS_CLASS.search(short)) and not name.startswith("torch.")


def handed_over(project, name: str) -> str | None:
    """Where a loss takes the model `name` after a third file hands it to a class or function of another
    (`LitModel(MyNet())`, whose training_step feeds `self.model(x)` to cross_entropy), the loss maybe handed in
    by the same call (`train(ConvNet(), nn.CrossEntropyLoss(), ...)`)."""
    from .losses_chosen import fed_loss
    from .project_reach import told_in_reach

    called, slash, element = name.partition("/")  # `Net/0`: an element of the tuple the model returns
    owner, dot, method = called.partition(".")  # `Net.predict`: the method of a model handed to a slot
    slots = told_in_reach(project, kinds.HAND + owner)  # by a file that can reach this one by the name
    for slot in slots.split(";") if slots else ():
        slot += dot + method + slash + element
        where = project.fed_to(slot)
        fed = resolve_slot_loss(where, owner, project) if where and where.startswith(SLOT_LOSS) else \
            fed_loss(project, slot)
        if fed is None:
            fed = _relayed(project, slot)
        if fed is not None:
            return fed
    return None


def _relayed(project, slot: str) -> str | None:
    """`@Combined#1`: the model went to argument 1 of a wrapper whose output is what that argument returns
    (its file tells `arg:1:...`), and a logit loss takes the wrapper's output: it takes this model's."""
    from .kinds.traced import symbolic
    from .losses_chosen import fed_loss

    wrapper, _, position = slot[1:].partition("#") if slot.startswith("@") else ("", "", "")
    if not wrapper or not position.isdigit():
        return None
    from .project_reach import definer_scopes

    relay = symbolic(project.kind_returned_by(wrapper) or "")
    if relay is None or relay[0] != int(position) or relay[2] is not None:
        return None
    # told to the wrapper's file (the file handing both imports it from there), not to this model's
    return next(filter(None, (fed_loss(project, wrapper, scopes) for scopes in definer_scopes(project, wrapper))), None)


def resolved_fed(fed: str | None, owner: ast.ClassDef, ctx) -> str | None:
    """A base class's step that hands `self(x)` to `self.criterion`: fed when this subclass keeps a logit loss there."""
    return subclass_loss(fed, owner, ctx) if fed is not None and fed.startswith(SELF_LOSS) else fed
