"""Running-average objects (AverageMeter and the like): whether `meter.update(value)` keeps the value it is
given, so a loss tensor handed to it keeps its autograd graph alive (MLD032).

A meter class defined in the module is read: its method stores a parameter (or an element of one) in
`self` (`self.sum += val * n`, `self.val = val`, `self._sum[i] += v` over `for i, v in enumerate(values)`,
`self.history.append(val)`) and never turns it into a number or a graph-free tensor (`val.item()`, `float(val)`, `val.detach()`,
`val.data`).
A meter class of another file of the run is read there: `meter_facts` tells the project index
(`keeps:AverageMeter.update` -> 'stores' or 'converts'). A meter class not seen at all is judged by its name
(`AverageMeter`, `RunningAverage`): the common implementations store what they are given.
"""

from __future__ import annotations

import ast
import re

from .kinds import method_of

UPDATES = {"update", "add", "append", "push", "record", "accumulate"}
CONVERTING = {"item", "detach", "tolist", "numpy"}
METER_NAME = re.compile(r"(Meter|Average|Averager|Accumulator|RunningMean|RunningStat)s?$")
FACT = "keeps:"  # project-index key prefix: keeps:<Class>.<method> -> 'stores' | 'converts'
STORES, CONVERTS = "stores", "converts"
SETITEM = "__setitem__"  # a collector keeping every value assigned to a key (`stats["loss"] = loss`)


def meter_facts(ctx) -> dict[str, str]:
    """What this file tells the others of the run: whether each class's update-like method keeps its argument,
    which training steps return what they backwarded (helpers/accum_losses.py), and which functions' results
    a loop here sums (helpers/accum_summed_returns.py)."""
    # imported here: accum_losses imports graph, which imports the context, which imports this module
    from .accum_losses import step_facts
    from .accum_summed_returns import summed_returns

    from .optim_children_facts import part_facts
    from .optim_loss_weights import weighted_facts

    from .accum_hook_state import hook_loss_facts
    from .accum_loss_scalers import loss_scaler_facts

    found = step_facts(ctx)
    found.update(summed_returns(ctx))
    found.update(hook_loss_facts(ctx))  # which hooks a training step hands a live loss to
    found.update(loss_scaler_facts(ctx))  # which functions rescale a loss they are handed (MLD014)
    # not meter facts: which classes hold weights, which parts a model class builds (MLD015); told here, with this file's other cheap facts,
    # until project_facts gives the optimiser facts a family of their own
    found.update(weighted_facts(ctx))
    found.update(part_facts(ctx))
    for name, cls in ctx.classes.items():
        for func in cls.body:
            if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) and func.name in UPDATES | {SETITEM}:
                found[f"{FACT}{name}.{func.name}"] = STORES if _stores_parameter(func, ctx) else CONVERTS
                if func.name == SETITEM and found[f"{FACT}{name}.{func.name}"] == STORES:
                    found[ANY_COLLECTOR] = name  # the run has a collector keeping every value set by key
    return found


ANY_COLLECTOR = f"{FACT}*.{SETITEM}"


def keeps_given(cls: ast.ClassDef, method: str, ctx) -> bool:
    """The class's `method` keeps the value it is given (`self.sum += val`) unconverted."""
    func = method_of(cls, method)
    return isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) and _stores_parameter(func, ctx)


def stored_arguments(call: ast.Call, ctx) -> list[ast.expr]:
    """The arguments `meter.update(...)` keeps, when the receiver is a meter that stores them; else []."""
    method = ctx.method_name(call)
    if method not in UPDATES or (not call.args and not call.keywords):
        return []
    built = ctx.constructed(call.func.value)
    if built is None:
        return []
    simple = built.rsplit(".", 1)[-1]
    cls = ctx.classes.get(simple) if built == simple else None
    if cls is not None:
        func = method_of(cls, method)
        if func is None or not _stores_parameter(func, ctx):
            return []
    else:
        told = ctx.project.kind_returned_by(f"{FACT}{simple}.{method}") if ctx.project is not None else None
        if told == CONVERTS or told is None and not METER_NAME.search(simple):
            return []
    return [a for a in call.args[:1] if not isinstance(a, ast.Starred)] or [
        k.value for k in call.keywords if k.arg is not None][:1]


def _stores_parameter(func: ast.FunctionDef | ast.AsyncFunctionDef, ctx) -> bool:
    """The method keeps its value parameter (the first; `__setitem__`'s second), or what iterating it yields,
    in `self`, never converted."""
    params = [a.arg for a in func.args.posonlyargs + func.args.args]
    params = params[2:3] if func.name == SETITEM else params[1:2]
    if not params:
        return False
    held = set(params)
    for node in ast.walk(func):  # names bound by iterating the parameter hold its elements
        if isinstance(node, ast.For) and _reads(node.iter, held):
            held |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    stores = False
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _converts(node, held, ctx):
            return False
        if isinstance(node, ast.Attribute) and node.attr == "data" and _reads(node.value, held):
            return False  # v.data: the tensor without its graph
        if isinstance(node, ast.Assign | ast.AugAssign) and node.value is not None and _reads(node.value, held):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_on_self(t) for t in targets):
                stores = True
        if isinstance(node, ast.Call) and ctx.method_name(node) in {"append", "extend", "insert"} \
                and _on_self(node.func.value) and any(_reads(a, held) for a in node.args):
            stores = True
    return stores


def _converts(call: ast.Call, held: set[str], ctx) -> bool:
    """`val.item()`, `val.detach()`, `float(val)`: the method keeps a number or a graph-free tensor."""
    if ctx.method_name(call) in CONVERTING and _reads(call.func.value, held):
        return True
    return isinstance(call.func, ast.Name) and call.func.id in {"float", "int"} and any(
        _reads(a, held) for a in call.args)


def _reads(expr: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def _on_self(target: ast.AST) -> bool:
    """`self.x`, `self.x[i]`, `self.x.y`: state that outlives the call."""
    while isinstance(target, ast.Subscript | ast.Attribute):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "self"
