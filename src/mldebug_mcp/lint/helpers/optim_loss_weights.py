"""A weighted module a trainer class builds itself while the optimiser it trains with is handed in.

`def __init__(self, opt, model, optimizer): self.optimizer = optimizer; self.loss = self._get_losses(opt);
self.model_with_loss = ModelWithLoss(model, self.loss)` where the loss holds learnable uncertainty weights
or a classifier head: whoever built the optimiser (from `model.parameters()`) could not have given it
parameters that did not exist yet, and the class never adds them (`add_param_group`), so backward fills
their gradients and they never move. The loss's weights may be defined in another file (a subclass's
`_get_losses` returning `MotLoss(opt)`): each file tells the run which of its classes hold weights and
which of its functions return an instance of one (`weighted:<name>` -> 'file:line/element').
"""

from __future__ import annotations

import ast
import os

from ..context import ModuleContext
from .gan_updates import words
from .optim_params import dotted, is_optimizer_name
from .optim_sched_order import OPTIMIZER_WORDS
from .optim_untrained import has_parameters, strip_moves

WEIGHTED = "weighted:"  # project fact: weighted:<Class or function> -> '<file>:<line>/<element or *>'
HARMLESS = {"to", "cuda", "cpu", "float", "double", "half", "train", "forward"}


def weighted_facts(ctx: ModuleContext) -> dict[str, str]:
    """What this file tells the run: its nn.Module classes that build weights of their own, and its functions
    and methods that return an instance of one (alone, or as an element of a returned tuple)."""
    found: dict[str, str] = {}
    if not ctx.classes or not ctx.has_text("Module"):
        return found
    base = os.path.basename(ctx.path)
    weighted = {name for name, cls in ctx.classes.items() if _builds_weights(cls, ctx)}
    for name in weighted:
        found[f"{WEIGHTED}{name}"] = f"{base}:{ctx.classes[name].lineno}/*"
    if not weighted:
        return found
    for ret in ctx.by_type.get(ast.Return, ()):
        func = ctx.enclosing(ret, (ast.FunctionDef,)) if ret.value is not None else None
        if func is None:
            continue
        elements = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
        for index, element in enumerate(elements):
            if isinstance(element, ast.Name | ast.Call):
                value = ctx.resolve(element) if isinstance(element, ast.Name) else element
                value = strip_moves(value) if isinstance(value, ast.Call) else value
                if isinstance(value, ast.Call) and ctx.call_name(value) in weighted:
                    where = index if isinstance(ret.value, ast.Tuple) else "*"
                    found.setdefault(f"{WEIGHTED}{func.name}", f"{base}:{value.lineno}/{where}")
    return found


def _builds_weights(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """An nn.Module class whose __init__ keeps an nn.Parameter or a torch.nn layer with weights on self (read
    from __init__ alone: this runs for every class of every file)."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None or not any((ctx.qualname(b) or "").startswith("torch.nn.") for b in cls.bases):
        return False
    for node in ctx.within(ast.Assign, init):  # its assignments by line, from the module's list: no walk
        if isinstance(node.value, ast.Call) and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                for t in node.targets):
            name = ctx.call_name(node.value) or ""
            if name == "torch.nn.Parameter" or name.startswith("torch.nn.") and has_parameters(node.value, ctx):
                return True
    return False


def built_beside_handed_optimizer(cls: ast.ClassDef, ctx: ModuleContext) -> list[tuple[ast.stmt, str, str]]:
    """(the statement after which the weights should join the optimiser, `self.X`, where its weights are
    built) for each weighted module the class builds and keeps on self, when the class trains with an
    optimiser it was handed and builds no optimiser, adds no param group, reads no parameters of it."""
    if not _trains(cls, ctx) or not _handed_optimizer(cls, ctx):  # _trains first: it reads the class body alone
        return []
    calls = [n for n in ast.walk(cls) if isinstance(n, ast.Call)]
    if any(is_optimizer_name(ctx.call_name(c)) or ctx.method_name(c) == "add_param_group" for c in calls):
        return []  # an optimiser built here (optim_untrained_attrs reads it) or extended: not this case
    found = []
    handed_in_init = any(f.name == "__init__" for f in _handing_methods(cls, ctx))
    for assign in (n for n in ast.walk(cls) if isinstance(n, ast.Assign) and len(n.targets) == 1):
        function = ctx.enclosing(assign, (ast.FunctionDef, ast.AsyncFunctionDef))
        if function is not None and function.name == "__init__" and not handed_in_init:
            # built by the constructor, the optimiser handed in later by a setter (model.add_optimizer(opt)):
            # the instance holds the module before any caller can build an optimiser from its parameters
            continue
        for target, where in _weighted_targets(assign, ctx):
            path = dotted(target)
            if path is None or path in {p for _, p, _ in found}:
                continue
            reads = _reads(cls, path)
            if reads and _only_run(reads, ctx):
                later = [r for r in reads if ctx.enclosing(r, (ast.FunctionDef, ast.AsyncFunctionDef)) is function
                         and r.lineno > assign.lineno]
                anchor = ctx.enclosing(later[-1], (ast.stmt,)) if later else assign  # the read's statement
                found.append((anchor, path, where))
    return found


def _handed_optimizer(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """`self.optimizer = optimizer` with `optimizer` a parameter of the method (built by the caller), and the
    class steps or zeroes it (`opt` alone often names the options)."""
    kept = _handed_attributes(ctx).get(cls)
    return bool(kept) and any(ctx.method_name(n) in {"step", "zero_grad"} and isinstance(n.func, ast.Attribute)
                              and dotted(n.func.value) in kept for n in ctx.within(ast.Call, cls))


def _handing_methods(cls: ast.ClassDef, ctx: ModuleContext) -> list[ast.AST]:
    """The methods of `cls` that keep a handed-in optimiser on self (`self.optimizer = optimizer`)."""
    kept = _handed_attributes(ctx).get(cls, set())
    return [f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                    and any(dotted(t) in kept for t in n.targets) for n in ast.walk(f))]


def _handed_attributes(ctx: ModuleContext) -> dict[ast.ClassDef, set[str]]:
    """For each class, the self attributes a method sets to its own parameter named as an optimiser (one pass
    over the module's assignments)."""
    def collect() -> dict[ast.ClassDef, set[str]]:
        found: dict[ast.ClassDef, set[str]] = {}
        for node in ctx.by_type.get(ast.Assign, ()):
            if not isinstance(node.value, ast.Name) or not words(node.value.id) & OPTIMIZER_WORDS:
                continue
            targets = {dotted(t) for t in node.targets if isinstance(t, ast.Attribute) and dotted(t.value) == "self"}
            func = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef)) if targets else None
            if func is None or node.value.id not in {a.arg for a in func.args.args + func.args.kwonlyargs}:
                continue
            cls = ctx.enclosing_class(func)
            if cls is not None:
                found.setdefault(cls, set()).update(targets)
        return found
    return ctx.memo(("optim_loss_weights.handed",), collect)


def _trains(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    return any(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f in ctx.backward_scopes for f in cls.body)


def _weighted_targets(assign: ast.Assign, ctx: ModuleContext) -> list[tuple[ast.Attribute, str]]:
    """(`self.X`, where its weights are built) for the targets of an assignment that holds a weighted module:
    a class with weights built here, or a call another file says returns one (at that tuple element)."""
    target, value = assign.targets[0], strip_moves(assign.value)
    if not isinstance(value, ast.Call):
        return []
    targets = target.elts if isinstance(target, ast.Tuple) else [target]
    on_self = [t if isinstance(t, ast.Attribute) and dotted(t.value) == "self" else None for t in targets]
    if not isinstance(target, ast.Tuple) and has_parameters(value, ctx):
        return [(target, f"line {value.lineno}")] if on_self[0] is not None else []
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    told = ctx.project.kind_returned_by(f"{WEIGHTED}{name}") if name and ctx.project is not None else None
    if not told or "/" not in told:
        return []
    where, element = told.rsplit("/", 1)
    if element == "*":
        return [(on_self[0], where)] if not isinstance(target, ast.Tuple) and on_self[0] is not None else []
    index = int(element)
    if isinstance(target, ast.Tuple) and index < len(targets) and on_self[index] is not None:
        return [(on_self[index], where)]
    return []


def _reads(cls: ast.ClassDef, path: str) -> list[ast.Attribute]:
    return [n for n in ast.walk(cls) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
            and dotted(n) == path]


def _only_run(reads: list[ast.Attribute], ctx: ModuleContext) -> bool:
    """Every read calls it, moves it, or hands it to a local module class that wraps it with the model (its
    forward runs it): none reads its parameters or hands it to code that may build an optimiser."""
    for node in reads:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            continue
        if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in HARMLESS:
            continue
        if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) \
                and parent.func.id in ctx.classes:
            continue
        return False
    return True

