"""A model handed in training mode to another file's evaluation or inference function (MLD020).

`model, transform = load_model(name, weights)` then `metrics = benchmark.evaluate(model, loader)`, or
`next_token(model, tokens)` whose file runs it under inference_mode: when that function belongs to another
file of the run and never switches a mode (project facts, helpers/modes_facts.py), whether the model runs
in eval mode is decided here, where it was loaded (or is being trained), and nothing here switched it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import EVAL_WORDS, ident, own_nodes, relative_names, scope_calls, tokens
from .modes import EVAL, SET, key_of, local_targets, mode_before, related, switches
from .modes_anchor import anchor_after_setup
from .modes_evidence import eval_source, framework_managed, scope_trains
from .modes_facts import callee_mode, handed_models, relative_import
from .modes_models import frozen, handed_in, mode_free, ready_from_loader
from .modes_nograd import grad_off_at

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def handed_to_evaluation(ctx: ModuleContext) -> Iterator[tuple[ast.AST, str, ast.Call]]:
    """(where model.eval() goes, the model's key, the call) for each model this file loads, or trains, and
    hands in training mode to another file's function that runs it with autograd off ('infers'), or is
    named for evaluation and handed data ('keeps'), without switching its mode."""
    if ctx.project is None:
        return
    # the scopes that hand a model to an imported function, in one pass over the calls: most scopes do not
    relative = bool(relative_names(ctx))
    handing = {ctx.scope_of(c) for c in ctx.by_type.get(ast.Call, ())
               if _imported(c, ctx, relative) and handed_models(c, ctx)}
    for scope in [ctx.tree, *(f for kind in FUNCS for f in ctx.by_type.get(kind, ()))]:
        if scope not in handing or framework_managed(scope, ctx):
            continue
        reported: set[str] = set()
        for call in scope_calls(scope, ctx):
            if local_targets(call, ctx) or not (models := [
                    m for m in handed_models(call, ctx) if key_of(m) not in reported]):
                continue
            mode = callee_mode(call, ctx)
            if not (mode == "infers" or (mode == "keeps" and (
                    _evaluates_data(call) or _inference_without_grad(call, scope, ctx)))):
                continue
            for model in models:
                key = key_of(model)
                if key is None or key == "self" or frozen(key):
                    continue
                # a model trained in this scope is in training mode here, wherever it was built
                if not (scope_trains(scope, ctx) and not mode_free(model, ctx) and _run_here(key, scope, ctx)) \
                        and not _loaded_here(model, key, scope, ctx):
                    continue
                switch = mode_before(call, key, scope, ctx)
                if switch is not None and switch.mode in (EVAL, SET):
                    continue
                if switch is None and _switched_elsewhere(scope, key, ctx):
                    continue
                reported.add(key)
                if switch is not None:
                    yield switch.node, key, call
                elif scope_trains(scope, ctx):
                    yield _top_statement(call, ctx), key, call  # periodic evaluation: just before it
                else:
                    yield anchor_after_setup(call, key, scope, ctx), key, call


def _imported(call: ast.Call, ctx: ModuleContext, relative: bool = True) -> bool:
    """A function of another module, not torch's (`evaluate(...)` from `engine`, `metrics.evaluate(...)`);
    `relative`: whether the file imports anything relatively."""
    if not (call.args or call.keywords):
        return False
    qualname = ctx.call_name(call)  # the callee's qualified name, kept per call
    if qualname is None:
        return relative and relative_import(call.func, ctx) is not None
    return "." in qualname and qualname.partition(".")[0] not in {"torch", "numpy", "np", "builtins"}


EVAL_VERBS = {"evaluate", "eval", "evaluation", "validate", "validation", "test", "predict", "inference", "infer",
              "benchmark"}
DATA_WORDS = {"loader", "dataloader", "dl", "dataset", "data", "batches", "iterator", "iter", "ds"}


def _evaluates_data(call: ast.Call) -> bool:
    """A function named for evaluation (`evaluate`, `test_model`, `predict_loader`) that is handed data as
    well as the model (`evaluate(model, val_loader)`), not a check of the model alone."""
    words = tokens(ident(call.func) or "")
    if not words or words[0] not in EVAL_VERBS:
        return False
    args = [*call.args, *(k.value for k in call.keywords)]
    named = [w for a in args for n in ast.walk(a) if isinstance(n, ast.Name | ast.Attribute)
             for w in tokens(ident(n) or "")]
    return bool(DATA_WORDS & set(named)) or any(eval_source(a) or _evaluation_path(a) for a in args)


def _evaluation_path(arg: ast.AST) -> bool:
    """`evaluate(model, './data/val', 200000)`: the folder or file of a held-out split, read by the function."""
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)) or len(arg.value) > 200:
        return False
    parts = [w for part in re.split(r"[/\\.]", arg.value) for w in re.split(r"[^a-z]+", part.lower()) if w]
    return bool(EVAL_WORDS & set(parts)) and "train" not in parts


INFERENCE_WORDS = {"inference", "infer", "predict", "prediction", "evaluate", "forecast"}


def _inference_without_grad(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """`with torch.no_grad(): logits = sliding_window_inference(image, roi, 4, net)`: a function named for
    inference anywhere in its name, called with autograd off here: the caller is running inference through it."""
    return bool(INFERENCE_WORDS & set(tokens(ident(call.func) or ""))) and grad_off_at(call, scope, ctx)


def _top_statement(call: ast.Call, ctx: ModuleContext) -> ast.AST:
    """The statement that holds the call (`losses = estimate_loss(model, ...)`): model.eval() goes above it."""
    return next((a for a in ctx.ancestors(call) if isinstance(a, ast.stmt)), call)


def _loaded_here(model: ast.AST, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """Built or loaded in this file (not handed in by a caller), and not one that starts in eval mode
    (from_pretrained) or comes from a wrapper class that sets its own mode."""
    if handed_in(model, scope, ctx) or mode_free(model, ctx) or ready_from_loader(model, ctx):
        return False
    calls = [v for v in ctx.values_of(model, model) if isinstance(v, ast.Call)]
    if calls:
        return not all(_project_loader(c, ctx) and callee_mode(c, ctx) in (None, EVAL) for c in calls)
    # `model, transform = load(...)`: a tuple unpacked from one call binds no single value; the loader may
    # switch the model it returns (in this file, or in another file of the run)
    nodes = ast.walk(scope) if isinstance(scope, ast.Module) else own_nodes(scope, ctx)
    loads = [n.value for n in nodes if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and any(
        isinstance(t, ast.Tuple | ast.List) and any(key_of(e) == key for e in t.elts) for t in n.targets)]
    return bool(loads) and not any(callee_mode(c, ctx) == "eval" or any(
        s.mode in (EVAL, SET) for t in local_targets(c, ctx) for s in switches(t, ctx)) for c in loads)


def _run_here(key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The scope runs the model itself (`model(x)`, `model.train()`, `model.parameters()`): one it only hands on
    (a vocoder passed to the logging and evaluation helpers) is not trained here."""
    return any(key_of(c.func) == key or isinstance(c.func, ast.Attribute) and key_of(c.func.value) == key
               and c.func.attr in {"train", "parameters", "forward", "named_parameters"}
               for c in scope_calls(scope, ctx))


# model libraries whose builder functions return a model in training mode (torchvision.models.resnet18(...))
MODEL_LIBRARIES = {"torch", "torchvision", "timm", "transformers", "segmentation_models_pytorch", "torchaudio",
                   "open_clip", "clip", "diffusers", "peft"}


def _project_loader(call: ast.Call, ctx: ModuleContext) -> bool:
    """`vocoder = get_vocoder(config, device)`: a function (not a class) imported from the project, whose file
    decides the mode it returns; unless that file is in the run and tells it keeps the mode, nothing here knows
    that the model is in training mode (FastSpeech2's loaders switch to eval, blind split 14)."""
    qualname = ctx.qualname(call.func) or relative_import(call.func, ctx) or ""
    short = qualname.rpartition(".")[2]
    return bool(short) and not short[:1].isupper() and "." in qualname \
        and qualname.lstrip(".").partition(".")[0] not in MODEL_LIBRARIES


def _switched_elsewhere(scope: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """A function around this one, or (for self.model) another method of the class, or (for a global the
    script builds) the module-level code, switches its mode."""
    for anc in ctx.ancestors(scope):
        if isinstance(anc, FUNCS) and any(s.mode in (EVAL, SET) for s in switches(anc, ctx)):
            return True
    root = key.split(".")[0]
    if root != "self" and root not in ctx.bindings.get(scope, {}) and any(
            s.mode in (EVAL, SET) and s.key is not None and related(s.key, key) for s in switches(ctx.tree, ctx)):
        return True
    cls = ctx.enclosing_class(scope) if key.startswith("self.") else None
    if cls is None:
        return False
    return any(s.key is not None and (s.key == key or key.startswith(s.key + ".")) and s.mode in (EVAL, SET)
               for m in cls.body if isinstance(m, FUNCS) and m is not scope for s in switches(m, ctx))
