"""Averaged copies of a model that are evaluated in training mode (MLD020).

An EMA or SWA wrapper of the project (`class ModelEma: def __init__(self, model): self.module =
deepcopy(model)`) copies the model with its mode: built from a model in training mode, the copy is in
training mode until someone calls eval() on it. Wrappers that mean it for evaluation call
`self.module.eval()` after the copy; when no method of the class does, evaluating the copy
(`validate(model_ema.module, val_loader)` after `model.eval()` of the live model only) runs its dropout
and batch statistics. Each file of the run tells, per class, the copies no method of the class switches:
`mode:<module>.<Class>.~copy.<attribute>` -> 'keeps' (or the mode its last switch leaves).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .modes import key_of, related, switches
from .modes_handed_models import calls_by_ident

MODE_FACT = "mode:"  # modes_facts' family (that module imports this one)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
COPY = "~copy."


def _copied_attributes(cls: ast.ClassDef, ctx: ModuleContext) -> list[str]:
    """`self.<attribute> = deepcopy(<something>)` in a method of the class (`copy.deepcopy` too)."""
    found = []
    for method in cls.body:
        if not isinstance(method, FUNCS):
            continue
        for node in ctx.within(ast.Assign, method):
            value = node.value
            if isinstance(value, ast.Call) and (ctx.call_name(value) or "").rsplit(".", 1)[-1] == "deepcopy" and \
                    len(node.targets) == 1 and (key := key_of(node.targets[0])) and key.count(".") == 1 and \
                    key.startswith("self."):
                found.append(key[len("self."):])
    return found


def _classes(ctx: ModuleContext):
    for name, cls in ctx.classes.items():
        if ctx.parent(cls) is ctx.tree:
            yield name, cls


def copy_fact_keys(ctx: ModuleContext, module: str) -> set[str]:
    """The keys copy_facts may tell, without the mode analysis (what mode_fact_keys lists)."""
    if not ctx.has_text("deepcopy"):
        return set()
    return {f"{MODE_FACT}{module}.{name}.{COPY}{attr}" for name, cls in _classes(ctx)
            for attr in _copied_attributes(cls, ctx)}


def copy_facts(ctx: ModuleContext, module: str) -> dict[str, str]:
    """For each deep-copied attribute of a top-level class: the mode the class's last switch of it (or of self,
    an nn.Module wrapper switching itself) leaves, or 'keeps' when no method switches it."""
    if not ctx.has_text("deepcopy"):
        return {}
    return ctx.memo(("mld020", "copy-facts", module), lambda: _copy_facts(ctx, module))


def _copy_facts(ctx: ModuleContext, module: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, cls in _classes(ctx):
        attrs = _copied_attributes(cls, ctx)
        if not attrs:
            continue
        every = [s for m in cls.body if isinstance(m, FUNCS) for s in switches(m, ctx)]  # the class's, in order
        for attr in attrs:
            key = f"self.{attr}"
            switched = [s for s in every if (s.key is None and not _super_call(s.node))
                        or (s.key is not None and related(s.key, key))]
            found[f"{MODE_FACT}{module}.{name}.{COPY}{attr}"] = switched[-1].mode if switched else "keeps"
    return found


def _infers(call: ast.Call, ctx: ModuleContext) -> bool:
    """The called function (of this file, or imported from another file of the run) runs the model it is handed
    with autograd off and switches no mode (its mode fact is 'infers')."""
    from .modes_facts import function_mode  # that module imports this one
    return function_mode(call.func, ctx) == "infers"


def _super_call(node: ast.AST) -> bool:
    """`super().__init__()`: the base class's constructor (nn.Module's switches nothing), whatever same-named
    method of this file it may be taken for."""
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and \
        isinstance(func.value.func, ast.Name) and func.value.func.id == "super"


def unswitched_copies_evaluated(ctx: ModuleContext) -> list[tuple[ast.AST, str, str]]:
    """(the call, the copy's key, the wrapper class) for each call that hands `wrapper.<copy>` to a function that
    runs the model it is handed with autograd off without switching its mode (`infers(call)`), where the wrapper
    is built from a class of the run that keeps that copy in the mode it was copied in, and this scope switches
    neither the copy nor the wrapper before the call (nor does any eval() of the file)."""
    found = []
    for call in ctx.by_type.get(ast.Call, ()):
        for arg in call.args[:1]:
            if not (isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name)):
                continue
            qualname = ctx.constructed(arg.value)
            if not qualname or (qualname not in ctx.classes and ("." not in qualname or ctx.project is None)):
                continue
            if qualname in ctx.classes:  # a wrapper class of this file
                from .modes_facts import _module_name
                module = _module_name(ctx.path)
                told = copy_facts(ctx, module).get(f"{MODE_FACT}{module}.{qualname}.{COPY}{arg.attr}")
            else:
                told = ctx.project.kind_returned_by(f"{MODE_FACT}{qualname}.{COPY}{arg.attr}")
            if told != "keeps" or not _infers(call, ctx):
                continue
            key = key_of(arg)
            scope = ctx.scope_of(call)
            if any(related(s.key, key) for s in switches(scope, ctx) if s.node.lineno < call.lineno) or any(
                    related(key_of(c.func.value), key) for c in calls_by_ident(ctx).get("eval", ())
                    if isinstance(c.func, ast.Attribute) and key_of(c.func.value)):
                continue  # switched before the call, or somewhere in the file (a setup step)
            found.append((call, key, qualname.rsplit(".", 1)[-1]))
    return found
