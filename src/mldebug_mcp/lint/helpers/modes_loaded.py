"""A model that a file loads trained weights into and runs, in a file that trains nothing and switches no
mode anywhere (MLD020): a demo, an inference or a scoring script (`net.load_state_dict(torch.load(ckpt))` or
`load_checkpoint(net, path)`, then `score = self.net(image).mean()` in a method named anything). Loading trained weights says the run is
inference; nothing here ever leaves training mode, so dropout and BatchNorm's batch statistics are live.

Quiet for export code (ONNX, tracing: exported graphs freeze the mode they are traced in, a separate
rule's concern), for a model's own methods, frameworks' hooks, frozen copies, models built in eval mode
(from_pretrained, a builder that switches), and where any mode switch or `.training` assignment exists.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import lru_cache

from ..context import ModuleContext
from .evaluation import ident, model_like, strip_calls, tokens
from .modes import SETUP, direct_switch, key_of, position
from .modes_anchor import given_weights, global_setup_end
from .modes_evidence import file_trains, framework_managed, model_class
from .modes_facts import callee_mode
from .modes_indirect import runs_model
from .modes_models import frozen, handed_in, mode_free, ready_from_loader

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
EXPORT_TEXTS = ("onnx", "jit.trace", "torch.export", "coremltools", "tensorrt")


def loaded_and_run_in_train_mode(ctx: ModuleContext) -> Iterator[tuple[ast.Call, str, ast.AST | None]]:
    """(the first call that runs it, key, where eval() goes when known) for each model this file loads weights
    into and runs, in a file that trains nothing and switches no mode."""
    if not any(map(ctx.has_text, ("load", "pretrained", "weights"))) or any(map(ctx.has_text, EXPORT_TEXTS)):
        return
    calls = ctx.by_type.get(ast.Call, ())
    built = _built_with_weights(ctx)
    loads = [(k, c) for c in calls if (k := _loads_into(c, ctx)) and not frozen(k)] + built
    if not loads or _switches_anything(calls, ctx) or file_trains(ctx):
        return
    reported: set[str] = set()
    for call in sorted((c for c in calls if c.args or c.keywords), key=position):
        receiver = runs_model(call, ctx)
        key = key_of(receiver) if receiver is not None else None
        if key is None or key in reported:
            continue
        scope = ctx.scope_of(call)
        if not any(k == key and _same_model(load, call, key, scope, ctx) for k, load in loads):
            origin = _handed_down(scope, key, ctx, 3)
            load = next((load for k, load in loads if k == origin and ctx.scope_of(load) is ctx.tree
                         and (k, load) not in built), None)
            if origin is None or origin in reported or load is None:
                continue  # `multi_scale(samples, model)` and `load_weights(model, path)`: two callers' models
            # the script's global model, loaded at module level and handed down to the function that runs it
            # (`_predict_row(model, ...)` -> `predict(model, ...)`): reported where the script sets it up
            loaded = _loaded_node(load)
            if loaded is not None and not (mode_free(loaded, ctx) or ready_from_loader(loaded, ctx)) and (
                    _built_here(loaded, ctx.tree, ctx)):
                reported.add(origin)
                yield load, origin, global_setup_end(origin, ctx)
            continue
        cls = ctx.enclosing_class(scope) if isinstance(scope, FUNCS) else None
        if framework_managed(scope, ctx) or (cls is not None and model_class(cls, ctx)):
            continue  # a framework's hook, or a model's own method: its user sets the mode
        if mode_free(receiver, ctx) or ready_from_loader(receiver, ctx) or not _built_here(receiver, scope, ctx):
            continue  # built in eval mode (from_pretrained, a loader that switches it), or a caller's model
        if _shape_check(call, scope, ctx):
            continue  # `out = net(x); print(out.size())`: a model file's self-test, the same in either mode
        reported.add(key)
        yield call, key, None


def _built_here(receiver: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """Built in this file (`net = Net()`, `self.model = Baseline()`): not a caller's model, nor a copy of one
    (`copy.deepcopy(model)` of a parameter keeps the mode the caller gave it)."""
    if handed_in(receiver, scope, ctx):
        return False
    calls = [v for v in ctx.values_of(receiver, receiver) if isinstance(v, ast.Call)]
    return bool(calls) and not all("copy" in (ident(c.func) or "").lower() for c in calls)


def _same_model(load: ast.Call, run: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The load and the run name one model: in one function, a global the script loads, or an attribute of one
    class (`self.model` loaded in a method, run in another)."""
    where = ctx.scope_of(load)
    if where is scope:
        return True
    if key.startswith("self."):
        return ctx.enclosing_class(load) is not None and ctx.enclosing_class(load) is ctx.enclosing_class(run)
    return where is ctx.tree and key.split(".")[0] not in ctx.bindings.get(scope, {})


def _handed_down(scope: ast.AST, key: str, ctx: ModuleContext, depth: int) -> str | None:
    """The module-level name every call of `scope` in this file hands in as the parameter `key` (through up
    to `depth` functions of this file); None when there is none, or callers hand different models."""
    if not isinstance(scope, FUNCS) or "." in key or depth == 0:
        return None
    params = [a.arg for a in [*scope.args.posonlyargs, *scope.args.args]]
    if key not in params:
        return None
    place = params.index(key)
    calls = [c for c in ctx.by_type.get(ast.Call, ()) if isinstance(c.func, ast.Name) and c.func.id == scope.name]
    found: set[str | None] = set()
    for call in calls:
        arg = next((k.value for k in call.keywords if k.arg == key), None)
        if arg is None and len(call.args) > place and not any(isinstance(a, ast.Starred) for a in call.args):
            arg = call.args[place]
        if not isinstance(arg, ast.Name):
            return None
        caller = ctx.scope_of(call)
        found.add(arg.id if caller is ctx.tree else _handed_down(caller, arg.id, ctx, depth - 1))
    return found.pop() if len(found) == 1 else None


def _loaded_node(load: ast.Call) -> ast.AST | None:
    """The model a load names: `model` of `model.load_state_dict(...)` or of `load_checkpoint(model, path)`."""
    func = load.func
    if isinstance(func, ast.Attribute) and func.attr == "load_state_dict":
        return func.value
    return load.args[0] if load.args else None


def _loads_into(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The key of the model a call loads trained weights into: `net.load_state_dict(state)`, or a loader
    handed the model (`load_checkpoint(model, path)`, `utils.load_weights(net, ckpt)`) unless another file of
    the run says that loader leaves it in eval mode."""
    func = call.func
    name = ident(func) or ""
    if name == "load_state_dict":
        return key_of(func.value) if call.args and isinstance(func, ast.Attribute) else None
    if not call.args or not _weight_loader(name):  # asked of every call of the file: by name, kept
        return None
    model = call.args[0]
    if not (isinstance(model, ast.Name | ast.Attribute) and model_like(model, ctx)):
        return None
    return key_of(model) if callee_mode(call, ctx) not in {"eval", "set"} else None


WEIGHT_WORDS = {"checkpoint", "ckpt", "weights", "weight", "state", "params", "pretrained", "snapshot"}


@lru_cache(maxsize=65_536)  # names repeat across calls and files; the answer is pure, so it may outlive a file
def _weight_loader(name: str) -> bool:
    """A name with the word load and a word for weights (`load_checkpoint`, `load_weights`)."""
    words = set(tokens(name))
    return "load" in words and bool(words & WEIGHT_WORDS)


def _switches_anything(calls, ctx: ModuleContext) -> bool:
    return any(direct_switch(c) for c in calls) or any(
        n.attr == "training" and isinstance(n.ctx, ast.Store) for n in ctx.by_type.get(ast.Attribute, ()))


def _built_with_weights(ctx: ModuleContext) -> list[tuple[str, ast.Call]]:
    """(key, build) for `net = models.resnet50(pretrained=True).to(device)`, `timm.create_model(name,
    pretrained=True)`, `vgg16(weights=VGG16_Weights.DEFAULT)`: a model built with trained weights, and, like
    any nn.Module, in training mode (from_pretrained builds in eval mode: not counted)."""
    if not (ctx.has_text("pretrained") or ctx.has_text("weights")):
        return []
    found = []
    for stmt in ctx.by_type.get(ast.Assign, ()):
        key = key_of(stmt.targets[0]) if len(stmt.targets) == 1 else None
        value = strip_calls(stmt.value, SETUP)  # .to(device), .cuda()
        if key and not frozen(key) and isinstance(value, ast.Call) and given_weights(value) and (
                ctx.method_name(value) != "from_pretrained"):
            found.append((key, value))
    return found


SHAPE_ATTRS = {"size", "shape", "dim", "ndim", "ndimension"}


def _shape_check(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The output is read only for its shape (`net(x).shape`, `out = net(x)` then only `out.size()`)."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Attribute):
        return parent.attr in SHAPE_ATTRS
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    uses = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(isinstance(p := ctx.parent(n), ast.Attribute) and p.attr in SHAPE_ATTRS for n in uses)
