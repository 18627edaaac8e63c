"""An evaluation function whose every caller, in other files of the run, hands it models already in eval mode
(MLD020 stays quiet).

`def im_detect_bbox_aug(model, images, device)` in bbox_aug.py runs the model over test-time augmentations and
switches nothing; inference.py's `compute_on_dataset()` calls `model.eval()` and then, under no_grad,
`im_detect_bbox_aug(model, images, device)`, the function's only use in the run. caikit's
`generate_text_func_stream(model, ...)` is called only by `PeftPromptTuning.run_stream_out()` with `self.model`,
which the class's `__init__` puts in eval mode (`model.eval(); self.model = model`) and no method of it switches
back. The mode is the callers', and every one of them set it.

Each file tells, for each function it imports from a module of its project (`from .bbox_aug import f`,
`utils.f(...)`): `@~called-eval:<module>.<function>@<scope>` -> 'yes' when every call of it here hands it models
in eval mode, else `~called-other:<module>.<function>` -> 'yes' (a model not switched or in training mode, no
model at all, the name handed on uncalled, or imported and never called: a re-export hides its callers). The
function's file is quiet only with the first told and the second not: the second is told unscoped, so a
namesake elsewhere in the run can only keep a finding. The facts are a lazy family of their own
(project_facts.py), whose tokens are the '<module>.<function>' names, read off the imports without the analysis.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import relative_names
from .loader_facts import LIBRARIES, scoped, told_in_scope
from .modes import EVAL, mode_before, related, switches
from .modes_handed_models import key_of

CALLED_EVAL = "~called-eval:"  # told scoped: '@~called-eval:<name>@<folder>'
CALLED_OTHER = "~called-other:"
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def callers_elsewhere_eval(scope: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """`scope` is a top-level function of this file that runs `key`, one of its parameters, never used by this
    file's own code, and every use of it in the run's other files is a call handing it models in eval mode."""
    if ctx.project is None or not isinstance(scope, FUNCS) or ctx.parent(scope) is not ctx.tree:
        return False
    args = scope.args
    if key.split(".")[0] not in {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}:
        return False
    if any(n.id == scope.name for n in ctx.by_type.get(ast.Name, ())):
        return False  # called or handed on here: this file's code is read as it is
    from .modes_facts import _module_name  # it imports this module

    name = f"{_module_name(ctx.path)}.{scope.name}"
    return told_in_scope(ctx, f"{CALLED_EVAL}{name}") == "yes" and ctx.project.kind_returned_by(
        f"{CALLED_OTHER}{name}") is None


def called_token(key: str) -> str | None:
    """The '<module>.<function>' name a key of called_facts is about (the family's token), else None."""
    if key.startswith(CALLED_OTHER):
        return key[len(CALLED_OTHER):]
    if key.startswith("@" + CALLED_EVAL):
        return key[len(CALLED_EVAL) + 1:].split("@", 1)[0]
    return None


def called_tokens(ctx: ModuleContext) -> frozenset[str]:
    """The names called_facts may tell about, without the analysis: the functions the file imports by name
    and the attributes it calls on an imported module (`utils.f(...)`)."""
    def compute() -> frozenset[str]:
        names = set(_imported_functions(ctx).values())
        roots = _module_roots(ctx)
        if roots:
            attribute = ast.Attribute
            for call in ctx.by_type.get(ast.Call, ()):
                if type(call.func) is attribute and (name := _module_call(call.func, roots)) is not None:
                    names.add(name)
        return frozenset(names)
    return ctx.memo(("called-tokens",), compute)


def called_facts(ctx: ModuleContext) -> dict[str, str]:
    """What this file's uses of the functions it imports say of the mode of the models they are handed."""
    def compute() -> dict[str, str]:
        found: dict[str, str] = {}
        for name, uses in _imported_uses(ctx).items():
            if uses and all(isinstance(u, ast.Call) and _hands_evaluated(u, ctx) for u in uses):
                found.update(dict.fromkeys(scoped(f"{CALLED_EVAL}{name}", "yes", ctx), "yes"))
            else:
                found[f"{CALLED_OTHER}{name}"] = "yes"
        return found
    return ctx.memo(("called-facts",), compute)


def _imported_uses(ctx: ModuleContext) -> dict[str, list[ast.AST]]:
    """'<module>.<function>' -> the calls of it in this file and the other uses of its bare name (a callback
    handed on); an imported name never used has none."""
    bare = _imported_functions(ctx)
    found: dict[str, list[ast.AST]] = {name: [] for name in bare.values()}
    roots = _module_roots(ctx)
    if roots:
        for call in ctx.by_type.get(ast.Call, ()):
            name = _module_call(call.func, roots)
            if name is not None:
                found.setdefault(name, []).append(call)
    if bare:
        for node in ctx.by_type.get(ast.Name, ()):
            if node.id in bare and isinstance(node.ctx, ast.Load):
                parent = ctx.parent(node)
                found[bare[node.id]].append(parent if isinstance(parent, ast.Call) and parent.func is node else node)
    return found


def _imported_functions(ctx: ModuleContext) -> dict[str, str]:
    """A name a from-import of a project module binds -> '<module>.<function>' (`from .bbox_aug import
    im_detect_bbox_aug`: 'bbox_aug.im_detect_bbox_aug'); classes and constants left out."""
    def compute() -> dict[str, str]:
        found = {}
        for node in ctx.by_type.get(ast.ImportFrom, ()):
            module = (node.module or "").split(".")
            if module[-1] and (node.level or module[0] not in LIBRARIES):
                for alias in node.names:
                    if _function_named(alias.name):
                        found[alias.asname or alias.name] = f"{module[-1]}.{alias.name}"
        return found
    return ctx.memo(("imported-functions",), compute)


def _module_roots(ctx: ModuleContext) -> dict[str, str]:
    """A name bound to a project module -> its dotted path (`import utils.test as t`: 't' -> 'utils.test';
    `from utils import test`, `from . import test`: 'test' -> '...test')."""
    def compute() -> dict[str, str]:
        found = {name: path for name, path in ctx.aliases.items() if path.split(".")[0] not in LIBRARIES}
        found.update({name: f"{node.module or ''}.{original}"
                      for name, (node, original) in relative_names(ctx).items()})
        return found
    return ctx.memo(("module-roots",), compute)


def _module_call(func: ast.AST, roots: dict[str, str]) -> str | None:
    """'<module>.<function>' for `test.predict_vb(...)` or `pkg.utils.f(...)` on a project module."""
    if type(func) is not ast.Attribute or not _function_named(func.attr):
        return None
    parts = [func.attr]
    value = func.value
    while type(value) is ast.Attribute:
        parts.append(value.attr)
        value = value.value
    if type(value) is not ast.Name or value.id not in roots:
        return None
    module = roots[value.id].rsplit(".", 1)[-1] if len(parts) == 1 else parts[1]
    return f"{module}.{func.attr}" if module else None


def _function_named(name: str) -> bool:
    """A function's name, not a class's or a constant's (`im_detect_bbox_aug`, `_run`; not `Net`, `CFG`)."""
    return bool(name) and name != "*" and not name[:1].isupper()


def _hands_evaluated(call: ast.Call, ctx: ModuleContext) -> bool:
    """The call hands models, each in eval mode here: switched by eval() before it in the calling scope
    (or by a helper called there), or `self.model` that its class puts in eval mode and never back."""
    from .modes_facts import handed_models  # it imports this module

    models = handed_models(call, ctx)
    if not models:
        return False
    scope = ctx.scope_of(call)
    for model in models:
        key = key_of(model)
        if key is None:
            return False
        switch = mode_before(call, key, scope, ctx)
        if switch is not None:
            if switch.mode != EVAL:
                return False
        elif not (key.startswith("self.") and _class_keeps_eval(scope, key, ctx)):
            return False
    return True


def _class_keeps_eval(scope: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """A method of the class switches `self.model` to eval mode (`model.eval(); self.model = model` in
    `__init__` counts) and none switches it otherwise."""
    cls = ctx.enclosing_class(scope)
    if cls is None:
        return False
    modes = set()
    for method in cls.body:
        if not isinstance(method, FUNCS):
            continue
        stored = {n.value.id: f"self.{t.attr}" for n in ast.walk(method) if isinstance(n, ast.Assign)
                  and isinstance(n.value, ast.Name) for t in n.targets if isinstance(t, ast.Attribute)
                  and isinstance(t.value, ast.Name) and t.value.id == "self"}
        for switch in switches(method, ctx):
            switched = switch.key
            if switched is not None and not switched.startswith("self."):
                root, _, rest = switched.partition(".")
                switched = stored[root] + ("." + rest if rest else "") if root in stored else None
                if switched is None:
                    continue  # a local model of the method (a classmethod's training loop): another object
            if related(switched, key):
                modes.add(switch.mode)
    return modes == {EVAL}
