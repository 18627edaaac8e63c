"""What flows into a loss: the value behind a call's receiver, the final layer of a model, and whether an
output is already a probability (MLD002-MLD005)."""

import ast
import os

from ..context import ModuleContext
from . import kinds
from .losses_branches import branch_logit_loss, object_loss_facts
from .losses_chosen import (
    CONDITIONAL,
    LOSS_CLASS,
    SELF_ACTIVATING,
    WRAPS,
    attr_loss_facts,
    builder_facts,
    built_loss,
    chosen_loss,
    wrapped_logit_loss,
)
from .losses_elsewhere import (
    framework_fed,
    keyword_fed,
    loss_handoff_facts,
    slot_fed,
    subclass_fed,
)
from .losses_handed import handed_by_caller, handed_loss_facts
from .losses_keyed import keyed_fed, keyed_loss_facts
from .losses_tabled import configured_loss
from .project_reach import scoped_uses

# methods that change a tensor's shape or device but not what its values mean
SHAPE_METHODS = {"view", "reshape", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "contiguous",
                 "to", "cuda", "cpu", "float", "double", "half"}
# methods on a module that return the same module
MODULE_MOVES = {"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "requires_grad_"}


def receiver_value(call: ast.Call, ctx: ModuleContext) -> ast.AST:
    """What the receiver of `recv.method(...)` holds; for `y = y.to(dev)` the value `y` had before."""
    receiver = call.func.value
    value = ctx.resolve(receiver)
    if value is not call:
        return value
    earlier = [v for v in ctx.values_of(receiver, at=receiver) if v is not call and v.lineno < call.lineno]
    return ctx.resolve(earlier[0]) if earlier else receiver


def strip_shape_ops(expr: ast.AST, ctx: ModuleContext) -> ast.AST:
    """`model(x).view(-1, C)` -> `model(x)`: what the values are does not depend on their layout."""
    value = ctx.resolve(expr)
    for _ in range(6):
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr in SHAPE_METHODS and ctx.call_name(value) is None):
            break
        value = receiver_value(value, ctx)
    return value


def final_layer(expr: ast.AST, ctx: ModuleContext, depth: int = 4) -> ast.Call | None:
    """The `nn.X(...)` that built the last layer `expr` came out of: self.fc(h), nn.Sequential, a local model."""
    value = ctx.resolve(expr)
    if depth <= 0 or not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Attribute) and len(ctx.values_of(value.func)) > 1:
        return None  # self.head assigned more than once: which layer runs is not visible
    built = ctx.resolve(value.func)
    for _ in range(4):  # model = Net().to(device); model = model.cuda()
        if isinstance(built, ast.Call) and ctx.method_name(built) in MODULE_MOVES:
            built = receiver_value(built, ctx)
    if not isinstance(built, ast.Call):  # a call of a local function
        name = ctx.call_name(value)
        return _returned_layer(ctx.functions[name], ctx, depth) if name in ctx.functions else None
    name = ctx.call_name(built) or ""
    if name == "torch.nn.Sequential":
        last = ctx.resolve(built.args[-1]) if built.args else None
        name = ctx.call_name(last) or ""
        built = last
    if name.startswith("torch.nn.") and name[9:10].isupper():
        return built  # a module class (nn.Linear), not a function (nn.functional.relu)
    return _returned_layer(ctx.classes[name], ctx, depth) if name in ctx.classes else None


def _returned_layer(owner: ast.AST | None, ctx: ModuleContext, depth: int) -> ast.Call | None:
    if isinstance(owner, ast.ClassDef):
        owner = next((n for n in owner.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if not isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    returns = [n.value for n in ast.walk(owner) if isinstance(n, ast.Return) and n.value is not None]
    layers = [final_layer(r, ctx, depth - 1) for r in returns]
    # every return must end in the same kind of layer, else the output is not known
    kinds = {ctx.call_name(layer) if layer else None for layer in layers}
    return layers[0] if len(kinds) == 1 and None not in kinds else None


def probability_kind(expr: ast.AST, ctx: ModuleContext) -> str | None:
    """'softmax' or 'sigmoid' (or 'log_softmax') for an activation output, 'raw logits' for a Linear output."""
    core = strip_shape_ops(expr, ctx)
    activation = ctx.activation_of(core)
    if activation:
        return activation
    layer = ctx.call_name(final_layer(core, ctx))
    return {"torch.nn.Linear": "raw logits", "torch.nn.Softmax": "softmax", "torch.nn.Sigmoid": "sigmoid",
            "torch.nn.LogSoftmax": "log_softmax"}.get(layer or "")


LOGIT_LOSSES = frozenset({
    "torch.nn.CrossEntropyLoss", "torch.nn.BCEWithLogitsLoss", "torch.nn.MultiLabelSoftMarginLoss",
})
LOGIT_FUNCTIONS = frozenset({
    "torch.nn.functional.cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.functional.multilabel_soft_margin_loss",
})
EXPECT_LOGITS = LOGIT_FUNCTIONS | LOGIT_LOSSES
LOGIT_TEXTS = ("cross_entropy", "CrossEntropyLoss", "BCEWithLogits", "binary_cross_entropy_with_logits",
               "multilabel_soft_margin", "MultiLabelSoftMargin")


TORCH_MODULES = "torch.nn.modules."


class LossSource:
    """Where a loss is chosen: its qualified name, the node that names it, and whether it is a parameter's
    default (a trainer's `loss_func=CrossEntropyLoss()`, which any model handed to it meets)."""

    __slots__ = ("default", "name", "node")

    def __init__(self, name: str, node: ast.AST, default: bool) -> None:
        # `torch.nn.modules.CrossEntropyLoss`, `torch.nn.modules.loss.BCELoss`: the class torch.nn exports
        if name.startswith(TORCH_MODULES):
            name = "torch.nn." + name.rsplit(".", 1)[-1]
        self.name, self.node, self.default = name, node, default


def _handed_loss(name: ast.AST, ctx: ModuleContext, depth: int) -> LossSource | None:
    """The loss every call site hands in for a parameter, once per parameter: helpers that pass it down through
    many calls at many levels would otherwise be walked once per path (exponentially many)."""
    def agreed() -> LossSource | None:
        passed = [loss_source(p, ctx, depth - 1) for p in kinds.call_sites(name, ctx)]
        names = {p.name if p is not None else None for p in passed}
        return passed[0] if len(names) == 1 and None not in names else None

    key = ("handed-loss", ctx.scope_of(name), getattr(name, "id", None))
    return ctx.memo_recursive(key, agreed, None)  # a cycle of calls hands in nothing known


def loss_source(expr: ast.AST, ctx: ModuleContext, depth: int = 8) -> LossSource | None:
    """The loss a callee or a value holds: `nn.CrossEntropyLoss()` (the class), `F.cross_entropy` (the
    function), through names, attributes (`self.loss_func = F.binary_cross_entropy_with_logits`), class
    constants (`self.DEFAULT_LOSS_CLS()`), `given or fallback`, and a parameter's default."""
    value, default = expr, False
    for _ in range(depth):
        if isinstance(value, ast.Call):
            name = ctx.call_name(value)
            if name == "functools.partial" and value.args:
                value = value.args[0]  # partial(F.binary_cross_entropy_with_logits, pos_weight=w): the loss bound
                continue
            if name is not None:
                return LossSource(name, value, default)
            callee = value.func
            if isinstance(callee, ast.Attribute) and callee.attr in MODULE_MOVES:
                value = callee.value  # nn.CrossEntropyLoss().to(device)
            else:
                value = callee  # self.DEFAULT_LOSS_CLS(): the class the attribute holds
        elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            value = value.values[-1]  # loss or nn.BCEWithLogitsLoss(): the fallback when none is given, a default
            default = True
        elif isinstance(value, ast.Name | ast.Attribute):
            name = ctx.qualname(value)
            if name is not None:
                return LossSource(name, value, default)
            if isinstance(value, ast.Name):
                reaching = kinds.reaching_values(value, ctx)[1] or []
                if len(reaching) > 1:  # chosen in the branches of an `if`: every branch must pick the same loss
                    found = [loss_source(v, ctx, depth - 1) if e is None else None for v, e in reaching]
                    names = {f.name if f is not None else None for f in found}
                    return found[0] if len(names) == 1 and None not in names else None
            resolved = ctx.resolve(value)
            if resolved is not value:
                value = resolved
                continue
            constant = _class_constant(value, ctx)
            if constant is not None:
                value = constant
                continue
            given = kinds.parameter_default(value, ctx)
            if given is None:  # a loss handed in: every call of the function in this file must pass the same one
                return _handed_loss(value, ctx, depth)
            value, default = given, True
        else:
            return None
    return None


def _class_constant(value: ast.AST, ctx: ModuleContext) -> ast.expr | None:
    if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"):
        return None
    cls = ctx.enclosing_class(value)
    return kinds.class_constant(cls, value.attr) if cls is not None else None


def loss_name(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The qualified name of the loss a call computes: `F.nll_loss(...)` (the function), `criterion(...)` (the
    class that built it), or a parameter's default (`def fit(..., loss_fn=nn.CrossEntropyLoss())`)."""
    source = loss_call_source(call, ctx)
    return source.name if source is not None else None


def loss_call_source(call: ast.Call, ctx: ModuleContext) -> LossSource | None:
    """Where the loss a call computes is chosen (kept per call: several rules ask)."""
    table = ctx.memo(("losses", "source"), dict)
    if call not in table:
        name = ctx.call_name(call)
        callee = call.func
        if name is None and isinstance(callee, ast.Attribute) and callee.attr == "forward":
            callee = callee.value  # criterion.forward(out, y)
        table[call] = LossSource(name, call, False) if name is not None else loss_source(callee, ctx)
    return table[call]


def logit_loss(call: ast.Call, ctx: ModuleContext) -> LossSource | None:
    """The source of the loss a call computes when it applies its own softmax or sigmoid (expects logits): also
    a loss class of this file or another that hands its input to one (a focal loss built on
    F.binary_cross_entropy_with_logits), named after the loss it wraps."""
    composed = _log_softmax_into_nll(call, ctx)
    if composed is not None:
        return composed
    source = loss_call_source(call, ctx)
    if source is None:  # `self.criterion(...)` set by a base class, maybe picked by a string this class sets
        # or handed to this class or function by another file; asked here, not kept: known once the index is
        chosen = chosen_loss(call, ctx) or handed_by_caller(call, ctx) \
            or branch_logit_loss(call, ctx, loss_source, EXPECT_LOGITS)
        return LossSource(chosen, call, False) if chosen in EXPECT_LOGITS else None
    if source.name not in EXPECT_LOGITS:
        # a loss class built on a logit loss, or a builder function returning one (`get_loss("bce")`)
        wrapped = wrapped_logit_loss(source.name.rsplit(".", 1)[-1], ctx) or built_loss(source.node, source.name, ctx) \
            or configured_loss(source.node, ctx, wrapped_logit_loss)
        logit = wrapped in EXPECT_LOGITS or wrapped in SELF_ACTIVATING or wrapped_logit_loss(
            (wrapped or "").rsplit(".", 1)[-1], ctx)
        if wrapped in SELF_ACTIVATING:  # named after the class: "DiceBCELoss (built on its own sigmoid)"
            wrapped = f"{source.name.rsplit('.', 1)[-1]} (built on {wrapped})"
        return LossSource(wrapped, source.node, source.default) if wrapped and logit else None
    return source


LOG_SOFTMAX_CALLS = {"torch.nn.functional.log_softmax", "torch.log_softmax", "torch.special.log_softmax"}
NLL = {"torch.nn.functional.nll_loss", "torch.nn.NLLLoss"}


def _log_softmax_into_nll(call: ast.Call, ctx: ModuleContext) -> LossSource | None:
    """`F.nll_loss(F.log_softmax(out, 1), y)` (or through a name, `logp = F.log_softmax(out, 1)`): the pair is a
    cross-entropy, so the log_softmax call is a loss that expects raw logits in `out`."""
    if not call.args or ctx.call_name(call) not in LOG_SOFTMAX_CALLS:
        return None
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        fed = [c for c in ctx.in_scope(ctx.scope_of(call), (ast.Call,)) if c.lineno >= call.lineno and c.args
               and isinstance(c.args[0], ast.Name) and c.args[0].id == name and ctx.resolve(c.args[0]) is call]
    else:
        fed = [parent] if isinstance(parent, ast.Call) and parent.args and parent.args[0] is call else []
    for loss in fed:
        source = loss_call_source(loss, ctx)
        if source is not None and source.name in NLL:
            return LossSource("torch.nn.functional.log_softmax then nll_loss", call, False)
    return None


def loss_inputs(call: ast.Call) -> list[ast.expr]:
    """The prediction a loss call is given: its first argument or `input=`."""
    first = call.args[:1]
    if first and isinstance(first[0], ast.Starred):
        return []
    return first or [k.value for k in call.keywords if k.arg == "input"]


def input_kinds(arg: ast.expr, ctx: ModuleContext) -> list[tuple[ast.expr, kinds.Traced]]:
    """(where, kind) for the value a loss is given: the argument itself when its kind is known here, else,
    when it is a parameter of the enclosing function, each argument the calls in this module pass for it."""
    found = kinds.traced_kind(arg, ctx)
    if found is not None:
        return [(arg, found)]
    core = kinds.parameter_root(arg, ctx)  # out.view(-1, C), flat[mask == 1]: derived from the parameter out
    return kinds.handed_kinds(core, ctx) if core is not None else []


def _entry_loss(value: ast.AST, ctx: ModuleContext) -> str | None:
    """The loss one entry of a dict of losses holds: a loss, or what a builder returns (`build_loss("bce")`)."""
    source = loss_source(value, ctx)
    if source is None or source.name in EXPECT_LOGITS:
        return source.name if source is not None else None
    return built_loss(source.node, source.name, ctx)


def fed_facts(ctx: ModuleContext) -> dict[str, str]:
    """`fed:<Model>` -> where a loss that expects logits takes the output of a model defined in another file
    (or `fed:*`: of any model handed to a trainer whose default loss it is): what this file tells the file
    that defines the model, so that one can point at its activation (helpers/kinds/facts.py). Those and the
    models it hands over (`hand:<Model>`) are told only for the files it can reach by the name
    (helpers/project_reach)."""
    return scoped_uses(_fed_facts(ctx), ctx, (kinds.FED, kinds.HAND))


def _fed_facts(ctx: ModuleContext) -> dict[str, str]:
    hands = kinds.handoff_facts(ctx, kinds.model_names)  # models handed to another file's trainer: told anyway
    if not any(map(ctx.has_text, LOGIT_TEXTS + ("Loss", "loss", "criterion", "logits=", "skorch", "skada"))):
        return hands
    keyword = ctx.has_text("logits=")
    framework = ctx.has_text("skorch") or ctx.has_text("skada")
    facts: dict[str, str] = {**hands, **loss_handoff_facts(ctx), **attr_loss_facts(ctx), **builder_facts(ctx),
                             **handed_loss_facts(ctx), **object_loss_facts(ctx, loss_source, EXPECT_LOGITS),
                             **keyed_loss_facts(ctx)}
    # Losses that hand their input to a logit loss, for other files; a file that never names one has none.
    for name in [*ctx.classes, *ctx.functions] if any(map(ctx.has_text, LOGIT_TEXTS + ("sigmoid", "softmax"))) else ():
        wrapped = wrapped_logit_loss(name, ctx)
        if wrapped:
            facts[WRAPS + name] = wrapped
    for call in ctx.by_type.get(ast.Call, ()):
        source, condition = logit_loss(call, ctx), ""
        if source is None and framework:  # DeepCoral(model, ...): the framework's default loss takes its output
            for name, where in framework_fed(call, ctx).items():
                facts.setdefault(name, where)
        if source is None and keyword and call.keywords:  # ce_loss(logits=out, labels=y): raw scores expected
            for name, where in keyword_fed(call, ctx).items():
                facts.setdefault(name, where)
        other = loss_call_source(call, ctx) if source is None else None
        if source is None and other is None:
            facts.update(subclass_fed(call, ctx, facts))
            for name, where in slot_fed(call, ctx).items():  # train(model, criterion): both handed in
                facts.setdefault(name, where)
            continue
        if source is None:  # a loss class of another file: a logit loss if that file says it wraps one
            source = other
            short = source.name.rsplit(".", 1)[-1]
            if not LOSS_CLASS.search(short) or short in ctx.classes or short in ctx.functions \
                    or source.name.startswith("torch."):
                continue
            condition = f"{CONDITIONAL}{short}|"
            for name, where in keyed_fed(call, short, ctx, kinds.fed_names, _entry_loss, EXPECT_LOGITS).items():
                facts.setdefault(name, where)  # or one keeping a dict of losses, one per output entry
        where = f"{condition}{source.name.rsplit('.', 1)[-1]} in {os.path.basename(ctx.path)}:{call.lineno}"
        for arg in loss_inputs(call):
            names = kinds.fed_names(arg, ctx)
            if not source.default:  # any model handed in from outside: only a trainer's default loss meets it
                names.discard(kinds.ANY_MODEL)
            for name in names:
                facts.setdefault(kinds.FED + name, where)
    return facts

