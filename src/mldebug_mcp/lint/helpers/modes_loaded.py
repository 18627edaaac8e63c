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
from .evaluation import model_like, tokens
from .modes import direct_switch, key_of, position
from .modes_evidence import file_trains, framework_managed, model_class
from .modes_facts import callee_mode
from .modes_indirect import runs_model
from .modes_models import frozen, mode_free, ready_from_loader

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
EXPORT_TEXTS = ("onnx", "jit.trace", "torch.export", "coremltools", "tensorrt")


def loaded_and_run_in_train_mode(ctx: ModuleContext) -> Iterator[tuple[ast.Call, str]]:
    """(the first call that runs it, key) for each model this file loads weights into and runs, in a file
    that trains nothing and switches no mode."""
    if not ctx.has_text("load") or any(map(ctx.has_text, EXPORT_TEXTS)):
        return
    calls = ctx.by_type.get(ast.Call, ())
    loaded = {k for c in calls if (k := _loads_into(c, ctx)) and not frozen(k)}
    if not loaded or _switches_anything(calls, ctx) or file_trains(ctx):
        return
    names = {k.rsplit(".", 1)[-1]: k for k in loaded}
    reported: set[str] = set()
    for call in sorted((c for c in calls if c.args or c.keywords), key=position):
        receiver = runs_model(call, ctx)
        key = key_of(receiver) if receiver is not None else None
        if key is None or key.rsplit(".", 1)[-1] not in names or key in reported:
            continue
        scope = ctx.scope_of(call)
        cls = ctx.enclosing_class(scope) if isinstance(scope, FUNCS) else None
        if framework_managed(scope, ctx) or (cls is not None and model_class(cls, ctx)):
            continue  # a framework's hook, or a model's own method: its user sets the mode
        if mode_free(receiver, ctx) or ready_from_loader(receiver, ctx):
            continue  # built in eval mode (from_pretrained, a loader that switches it)
        reported.add(key)
        yield call, key


def _loads_into(call: ast.Call, ctx: ModuleContext) -> str | None:
    """The key of the model a call loads trained weights into: `net.load_state_dict(state)`, or a loader
    handed the model (`load_checkpoint(model, path)`, `utils.load_weights(net, ckpt)`) unless another file of
    the run says that loader leaves it in eval mode."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name == "load_state_dict":
        return key_of(func.value) if call.args else None
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
