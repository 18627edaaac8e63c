"""A loss and an activation picked by the same test (MLD001).

A trainer for several tasks often chooses its loss in one method (`if self.task == "class": self.loss =
nn.CrossEntropyLoss()` else an MSELoss) and shapes the network's output in another (`if self.task ==
"class": pred = F.softmax(pred, 1)`). Neither branch alone says which loss the probabilities meet; the shared
test does: on the task where the output is softmaxed, the loss is the one that applies its own softmax.
"""

import ast

from ..context import ModuleContext
from .kinds import method_of
from .kinds.vocabulary import ACTIVATIONS, MODULES, TENSOR_METHODS
from .kinds.vocabulary import FUNCTIONS as KIND_FUNCTIONS
from .losses import EXPECT_LOGITS, loss_source

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def gate(node: ast.AST, ctx: ModuleContext) -> tuple[str, bool] | None:
    """The test of the nearest `if` around `node` in its function (its text, `self.` left out), and whether `node` is in its body (True) or
    its else (False); None outside any `if`."""
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, FUNCTIONS):
            return None
        if isinstance(ancestor, ast.If) and child is not ancestor.test:
            # `mode == "x"` in the method that stores self.mode and `self.mode == "x"` elsewhere are one test
            return ast.unparse(ancestor.test).replace("self.", ""), any(child is s for s in ancestor.body)
        child = ancestor
    return None


def gated_logit_losses(call: ast.Call, ctx: ModuleContext) -> list[tuple[str, tuple[str, bool]]]:
    """(loss name, gate) for each logit loss the callee of `call` holds on one branch of a test, when it holds
    other (not logit) losses on other branches: `self.loss(...)` after the `if`/`elif` that set it."""
    callee = call.func
    if not isinstance(callee, ast.Name | ast.Attribute):
        return []
    values = ctx.values_of(callee, at=call)
    if len(values) < 2:
        return []
    found = []
    for value in values:
        source = loss_source(value, ctx)
        where = gate(value, ctx)
        if source is not None and source.name in EXPECT_LOGITS and where is not None:
            found.append((source.name, where))
    return found


def gated_activations(arg: ast.expr, call: ast.Call, want: tuple[str, bool], ctx: ModuleContext) -> list[tuple[ast.Call, str]]:
    """(activation call, kind) that a method of this class applies to the value the loss is given, on the branch
    `want` of its test: `pred, y = self.format_output(pred, y)` with `if self.task == "class": pred =
    F.softmax(pred, 1)` in format_output, returning `pred, target`."""
    if not isinstance(arg, ast.Name):
        return []
    made = _last_value(arg, call, ctx)
    if made is None:
        return []
    kind = _activation(made, ctx)
    if kind is not None:  # `if self.mode == "multilabel": scores = scores.sigmoid()` just before the loss
        return [(made, kind)] if gate(made, ctx) == want else []
    method = _own_method(made, ctx)
    if method is None:
        return []
    index = _target_index(made, arg.id, ctx)
    found = []
    nodes = list(ast.walk(method))
    assigns = [n for n in nodes if isinstance(n, ast.Assign)]
    for ret in (n for n in nodes if isinstance(n, ast.Return) and n.value is not None):
        value = ret.value
        if isinstance(value, ast.Tuple):
            if index is None or index >= len(value.elts):
                continue
            value = value.elts[index]
        if not isinstance(value, ast.Name):
            continue
        for node in assigns:
            if any(isinstance(t, ast.Name) and t.id == value.id for t in node.targets):
                kind = _activation(node.value, ctx)
                if kind is not None and gate(node, ctx) == want:
                    found.append((node.value, kind))
    return found


def _last_value(arg: ast.Name, call: ast.Call, ctx: ModuleContext) -> ast.Call | None:
    """The call last assigned to `arg` before `call` in its function, also unpacked (`pred, batch.y = ...`)."""
    function = ctx.enclosing(call, FUNCTIONS)
    if function is None:
        return None
    latest = None
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and node.lineno < call.lineno and any(
                isinstance(n, ast.Name) and n.id == arg.id for t in node.targets for n in ast.walk(t)) and (
                latest is None or node.lineno > latest.lineno):
            latest = node
    return latest.value if latest is not None and isinstance(latest.value, ast.Call) else None


def _own_method(call: ast.Call, ctx: ModuleContext) -> ast.FunctionDef | None:
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    cls = ctx.enclosing_class(call)
    if cls is None:
        return None
    return method_of(cls, func.attr)


def _target_index(value: ast.Call, name: str, ctx: ModuleContext) -> int | None:
    """Where `name` sits in the tuple the call's result is unpacked into (`pred, y = ...`): 0; None for a plain
    assignment."""
    assign = ctx.parent(value)
    if not isinstance(assign, ast.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Tuple):
        return None
    names = [getattr(e, "id", None) for e in assign.targets[0].elts]
    return names.index(name) if name in names else None


def _activation(value: ast.expr, ctx: ModuleContext) -> str | None:
    """The kind of an activation applied here: `F.softmax(x, 1)`, `x.sigmoid()`, `nn.Softmax(1)(x)`."""
    if not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Call):
        kind = MODULES.get(ctx.call_name(value.func) or "")
    elif isinstance(value.func, ast.Attribute) and value.func.attr in TENSOR_METHODS and not ctx.call_name(value):
        kind = TENSOR_METHODS[value.func.attr]
    else:
        kind = KIND_FUNCTIONS.get(ctx.call_name(value) or "")
    return kind if kind in ACTIVATIONS else None
