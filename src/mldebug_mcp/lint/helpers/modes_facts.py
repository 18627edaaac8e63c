"""What the files of one lint run tell each other about train/eval modes (MLD020).

`mode:<module>.<function>` for each top-level function of a file: the mode its last switch (its own, or a
helper's of its file) leaves, 'eval', 'train' or 'set' (train(was_training)); when it switches nothing,
'infers' if it runs a model it is handed with autograd off (inference in whatever mode the model came in),
else 'keeps'. A file that loads a model and hands it to `evaluate(model, loader)` of another
file asks here whether that function puts the model in eval mode itself.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import PurePath

from ..context import ModuleContext
from .evaluation import (
    ident,
    model_like,
    model_named,
    own_nodes,
    plainly_no_model,
    relative_names,
)
from .loader_facts import scoped, told_in_scope
from .loops import is_backward, is_optimizer_step
from .modes import key_of, local_targets, switches
from .modes_brain import brain_fact_keys, brain_facts
from .modes_builders import evaluated_builder_facts, evaluated_builder_keys
from .modes_callback_hooks import hook_mode_facts, hook_mode_keys
from .modes_copies import copy_fact_keys, copy_facts
from .modes_nograd import grad_off_at

MODE_FACT = "mode:"
GRAD_OFF_TEXTS = ("no_grad", "inference_mode", "set_grad_enabled")  # the names no_grad_expr recognises end so
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
BUILTINS = {"len", "print", "isinstance", "getattr", "hasattr", "setattr", "type", "id", "repr", "str", "list",
            "tuple", "dict", "zip", "enumerate", "iter", "next", "sum", "any", "all", "sorted", "map", "filter"}


def mode_facts(ctx: ModuleContext) -> dict[str, str]:
    """`mode:<module>.<function>` -> 'eval', 'train', 'set', 'infers' or 'keeps' for the top-level functions
    of this file that take arguments (the module named by its file, or its package for an __init__.py);
    none for one that hands its model on to another file's code."""
    def compute() -> dict[str, str]:
        module = _module_name(ctx.path)
        # only functions that switch a mode, or call one of this file's functions that may, need the full
        # analysis; every other function keeps the mode (most files: no text to look at twice)
        texts = ctx.has_text("eval") or ctx.has_text(".train(") or ctx.has_text(".training")
        switching = {f.name for kind in FUNCS for f in ctx.by_type.get(kind, ()) if texts and _switch_text(f, ctx)}
        grad_text = any(map(ctx.has_text, GRAD_OFF_TEXTS))  # inference needs autograd off, written in this file
        found: dict[str, str] = {}
        for name, func in ctx.functions.items():
            if not isinstance(func, FUNCS) or not (func.args.args or func.args.posonlyargs):
                continue
            # the calls inside the def (nested ones too) first: only when one calls a switching function are
            # the function's own nodes looked at
            maybe = name in switching or (bool(switching) and any(
                ident(n.func) in switching for n in ctx.within(ast.Call, func)) and any(
                isinstance(n, ast.Call) and ident(n.func) in switching for n in own_nodes(func, ctx)))
            switched = []
            if maybe:
                copies = _copies(func, ctx)  # `model = deepcopy(model); model.eval()` switches the copy only
                switched = [w for w in switches(func, ctx) if (w.key or "").split(".")[0] not in copies]
            if switched:  # the mode it leaves: 'eval' (validate()), 'train' (train_one_epoch()), 'set'
                found[f"{MODE_FACT}{module}.{name}"] = switched[-1].mode
            elif not _hands_on(func, ctx):  # one that passes its model to another file's code: unknown
                inferring = grad_text and _infers(func, ctx)
                found[f"{MODE_FACT}{module}.{name}"] = "infers" if inferring else "keeps"
        if texts:
            for cls_name, method_name, mode in _method_modes(ctx):
                found[f"{MODE_FACT}{module}.{cls_name}.{method_name}"] = mode
        for cls_name, method_name in _running_methods(ctx):
            found.setdefault(f"{MODE_FACT}{module}.{cls_name}.{method_name}", RUNS)
        trainer = handed_model_trainer(ctx)
        if trainer is not None:
            found.update(trains_handed_keys(ctx, trainer))
        found.update(_free_classes(ctx, module))
        found.update(hook_mode_facts(ctx))  # a callback's hook that switches the model of the trainer it is handed
        found.update(copy_facts(ctx, module))  # an EMA wrapper's deep copy, switched by the class or not
        found.update(evaluated_builder_facts(ctx))  # the imported builders whose models this file predicts with
        found.update(brain_facts(ctx, module))  # the classes deriving from speechbrain's Brain
        return found
    if not ctx.has_text("def ") and not ctx.has_text("Brain"):  # (a Brain subclass may define nothing)
        return {}
    return ctx.memo(("modes", "facts"), compute)


def _method_modes(ctx: ModuleContext):
    """(class, method, mode) for each method whose last switch of a model it holds (`self.model.eval()`)
    leaves it in a mode: an evaluator object built with the model (`Evaluator(model).get_scores()`)."""
    for cls in ctx.classes.values():
        if ctx.parent(cls) is not ctx.tree:
            continue
        for method in cls.body:
            if isinstance(method, FUNCS) and _switch_text(method, ctx):
                switched = [w for w in switches(method, ctx) if (w.key or "").startswith("self.")]
                if switched:
                    yield cls.name, method.name, switched[-1].mode


# a method named for model outputs that runs the model its object holds over a loop's batches, keeping the
# outputs, and neither switches a mode nor trains: a subclass's method calling it evaluates in whatever mode
# the model is in
RUNS = "runs"
OUTPUT_WORDS = {"embedding", "embeddings", "embed", "features", "feature", "predict", "prediction", "predictions",
                "prob", "probs", "probabilities", "scores", "outputs", "logits", "extract", "infer", "encode"}


@lru_cache(maxsize=16_384)  # a pure answer about a name; names repeat across calls and files
def output_named(name: str) -> bool:
    return bool(OUTPUT_WORDS & set(name.lower().split("_")))


def _running_methods(ctx: ModuleContext):
    """(class, method) for each such method of a top-level class (`get_embedding(self, dataset)` looping
    `self.model(x)` or `self.extract(x)`, a method of the class that runs it)."""
    for cls in ctx.classes.values():
        if ctx.parent(cls) is not ctx.tree:
            continue
        methods = {m.name: m for m in cls.body if isinstance(m, FUNCS)}
        named = [name for name in methods if output_named(name)]
        if not named:
            continue  # most classes have no method named for model outputs
        helpers = {name for name, m in methods.items() if any(
            _held_model_call(n, ctx, methods, set()) for n in ctx.within(ast.Call, m)) and not switches(m, ctx)}
        for name in named:
            method = methods[name]
            if _runs_held_model(method, ctx, methods, helpers) and not switches(
                    method, ctx) and not any(is_backward(n) or is_optimizer_step(n, ctx)
                                             for n in ctx.within(ast.Call, method)):
                yield cls.name, name


def _runs_held_model(method: ast.AST, ctx: ModuleContext, methods: dict, helpers: set[str]) -> bool:
    """In a `for` loop, the output of `self.<model>(...)` (or of a helper in `helpers`) is kept."""
    for loop in ast.walk(method):
        if not isinstance(loop, ast.For):
            continue
        if any(isinstance(n, ast.Call) and _held_model_call(n, ctx, methods, helpers) for n in ast.walk(loop)):
            return True
    return False


def _held_model_call(node: ast.Call, ctx: ModuleContext, methods: dict, helpers: set[str]) -> bool:
    """`self.net(x)` (a model the object holds) or `self._features(x)` (a helper in `helpers`), its output
    kept (a forward for its side effects is no evaluation)."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
            and (node.args or node.keywords)) or isinstance(ctx.parent(node), ast.Expr):
        return False
    return func.attr in helpers or (func.attr not in methods and model_like(func, ctx))


def method_mode(built: ast.Call, method: str, ctx: ModuleContext) -> str | None:
    """The mode `built.method()` leaves, where `built` builds an object of a class of this file or of another
    file of the run; None when unknown."""
    func = built.func
    if isinstance(func, ast.Name) and func.id in ctx.classes:
        cls = ctx.classes[func.id]
        target = next((m for m in cls.body if isinstance(m, FUNCS) and m.name == method), None)
        switched = [w for w in switches(target, ctx) if (w.key or "").startswith("self.")] if target else []
        return switched[-1].mode if switched else None
    qualname = ctx.qualname(func) or relative_import(func, ctx) or ""
    parts = qualname.lstrip(".").split(".")
    if len(parts) < 2 or ctx.project is None:
        return None
    return ctx.project.kind_returned_by(f"{MODE_FACT}{parts[-2]}.{parts[-1]}.{method}")


def mode_fact_keys(ctx: ModuleContext) -> frozenset[str]:
    """Every key mode_facts may tell, without the analysis: the engine computes the facts only when a file of
    the run asks one of them (most files' functions are never asked about). Keep in step with mode_facts."""
    module = _module_name(ctx.path)
    methods = {f"{MODE_FACT}{module}.{name}.{m.name}" for name, cls in ctx.classes.items() if ctx.parent(cls) is ctx.tree
               for m in cls.body if isinstance(m, FUNCS)}
    trainer = set(trains_handed_keys(ctx, "")) if ctx.has_text("training_step") else set()
    free = {key for name in _model_classes(ctx) for key in free_keys(ctx, f"{module}.{name}", "")}
    return frozenset({f"{MODE_FACT}{module}.{name}" for name in ctx.functions} | methods | trainer | free
                     | hook_mode_keys(ctx) | copy_fact_keys(ctx, module) | evaluated_builder_keys(ctx)
                     | brain_fact_keys(ctx, module))


def free_keys(ctx: ModuleContext, qualname: str, value: str) -> dict[str, str]:
    """The free-class fact of `qualname` told for this file's own project only (a run over a repository of
    many small projects, each with its model.py defining a Net, must not mix them up)."""
    return {f"{MODE_FACT}{key}": value for key in scoped(f"~free:{qualname}", value, ctx)}


def free_told(ctx: ModuleContext, qualname: str) -> str | None:
    """What a file of this file's project tells about the model class `qualname` (`model.Net`)."""
    return told_in_scope(ctx, f"~free:{qualname}", MODE_FACT)


def _model_classes(ctx: ModuleContext) -> list[str]:
    """The top-level classes of the file with a base named like a module (nn.Module, Module)."""
    return [name for name, cls in ctx.classes.items() if ctx.parent(cls) is ctx.tree
            and any("Module" in ast.unparse(b) for b in cls.bases)]


def _free_classes(ctx: ModuleContext, module: str) -> dict[str, str]:
    """`mode:@~free:<module>.<Class>@<scope>` -> 'free' (or 'needs:' the other files' classes it builds) for
    each model class built only of layers whose output does not depend on the mode."""
    from .modes_models import class_needs  # it imports this module

    found = {}
    for name in _model_classes(ctx):
        needs = class_needs(ctx.classes[name], ctx)
        if needs is not None:
            found.update(free_keys(ctx, f"{module}.{name}", "needs:" + ",".join(sorted(needs)) if needs else "free"))
    return found


# `mode:~trains-handed` -> 'LitModel in pl_module.py': a framework module of the run trains a model it is handed
# (`self.model = model` in __init__, run in training_step) and never switches a mode: the model trains in the
# mode it was handed in (recent Lightning keeps each submodule's mode), so a builder that returns it in eval
# mode (helpers/modes_factories.py) leaves it training in eval mode
# is told for the file's own project only: under its module path and every folder above it (loader_facts.scoped),
# asked under the asking file's folder and the places its imports may name, so that a run over a folder of
# several projects does not blame one project's builders on another project's trainer
TRAINS_HANDED = f"{MODE_FACT}~trains-handed"


def trains_handed_keys(ctx: ModuleContext, trainer: str) -> dict[str, str]:
    return {f"{TRAINS_HANDED}{key}": value for key, value in scoped("", trainer, ctx).items()}


def trainer_in_scope(ctx: ModuleContext) -> str | None:
    """The framework module of this file's project that trains a model it is handed, as TRAINS_HANDED says."""
    return told_in_scope(ctx, "", TRAINS_HANDED)


def handed_model_trainer(ctx: ModuleContext) -> str | None:
    if not ctx.has_text("training_step") or ctx.has_text(".train(") or ctx.has_text("eval()"):
        return None
    for cls in ctx.classes.values():
        step = next((m for m in cls.body if isinstance(m, FUNCS) and m.name == "training_step"), None)
        init = next((m for m in cls.body if isinstance(m, FUNCS) and m.name == "__init__"), None)
        if step is None or init is None:
            continue
        params = {a.arg for a in init.args.args[1:] if model_named(a.arg)}
        kept = {t.attr for n in ast.walk(init) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                and n.value.id in params for t in n.targets
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
        runs = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in kept
                   and isinstance(n.func.value, ast.Name) and n.func.value.id == "self" for n in ast.walk(step))
        if kept and (runs or _calls_self(step)):
            return f"{cls.name} in {PurePath(ctx.path).name}"
    return None


def _calls_self(step: ast.AST) -> bool:
    """`self(x)` or `self.forward(x)` in the step: the module's forward, which runs the kept model."""
    return any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id == "self" or isinstance(
        n.func, ast.Attribute) and n.func.attr == "forward" and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "self") for n in ast.walk(step))


def _copies(func: ast.AST, ctx: ModuleContext) -> set[str]:
    """Names assigned a copy (`deepcopy(model)`, `copy.copy(net)`): switching them leaves the original alone."""
    return {t.id for n in own_nodes(func, ctx) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
            and (ident(n.value.func) or "").lower().endswith("copy") for t in n.targets if isinstance(t, ast.Name)}


def _hands_on(func: ast.AST, ctx: ModuleContext) -> bool:
    """Passes a parameter named like a model to a function that is neither this file's nor torch's
    (`engine.run_eval(model, loader)`): that function may switch the mode, out of sight here."""
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args] if model_named(a.arg)}
    if not params:
        return False
    for node in own_nodes(func, ctx):
        if not (isinstance(node, ast.Call) and params & {
                a.id for a in [*node.args, *(k.value for k in node.keywords)] if isinstance(a, ast.Name)}):
            continue
        qualname = ctx.qualname(node.func) or ""
        if not local_targets(node, ctx) and qualname.split(".")[0] not in {"torch", "builtins"} and (
                ident(node.func) not in BUILTINS):
            return True
    return False


def _infers(func: ast.AST, ctx: ModuleContext) -> bool:
    """Runs a model it is handed with autograd off (`@torch.inference_mode` on a decoding step, a loss
    estimate under no_grad): inference, whose mode it leaves to its caller."""
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args]}
    if not any(_root(n.func) in params and model_like(n.func, ctx) for n in ctx.within(ast.Call, func)):
        return False  # no call inside the def (nested ones too) runs a parameter that holds a model
    # a forward kept for its output: one run as a bare statement refreshes BatchNorm statistics or calibrates
    # (precise-BN's update_bn_stats needs the train mode its caller set)
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute) and
               (key_of(n.func) or "").split(".")[0] in params and model_like(n.func, ctx) and
               not isinstance(ctx.parent(n), ast.Expr) and grad_off_at(n, func, ctx) for n in own_nodes(func, ctx))


def _root(func: ast.AST) -> str | None:
    """`model` for `model(x)` and `model.encoder.forward(x)`: the name a callee's attribute chain starts from."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


def _switch_text(func: ast.AST, ctx: ModuleContext) -> bool:
    text = "\n".join(ctx.lines[func.lineno - 1:func.end_lineno])
    return ".eval(" in text or ".train(" in text or "mode" in text or ".training" in text


def callee_mode(call: ast.Call, ctx: ModuleContext) -> str | None:
    """'eval' or 'keeps' for a function imported from another file of the run (`from engine import evaluate`,
    `metrics.evaluate(...)`); None when its module is not in the run."""
    qualname = ctx.qualname(call.func) or relative_import(call.func, ctx) or ""
    parts = qualname.lstrip(".").split(".")
    if len(parts) < 2 or ctx.project is None:
        return None
    return ctx.project.kind_returned_by(f"{MODE_FACT}{parts[-2]}.{parts[-1]}")


def function_mode(func: ast.expr, ctx: ModuleContext) -> str | None:
    """The mode fact of the function `func` names: this file's own (mode_facts), else one imported from another
    file of the run (callee_mode); None when no file tells."""
    if isinstance(func, ast.Name) and func.id in ctx.functions:
        return mode_facts(ctx).get(f"{MODE_FACT}{_module_name(ctx.path)}.{func.id}")
    return callee_mode(ast.Call(func=func, args=[], keywords=[]), ctx)


def relative_import(func: ast.AST, ctx: ModuleContext) -> str | None:
    """`from ..utils import load` (relative imports have no qualified name here): 'utils.load'; also
    `from . import metrics` then `metrics.evaluate`."""
    relative = relative_names(ctx)
    if not relative:
        return None  # most files import nothing relatively
    name = func.id if isinstance(func, ast.Name) else func.value.id if (
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)) else None
    found = relative.get(name)
    if found is None:
        return None
    node, original = found
    if isinstance(func, ast.Name):
        return f"{node.module or ''}.{original}"
    return f"{original}.{func.attr}"


def _module_name(path: str) -> str:
    pure = PurePath(path)
    return pure.parent.name if pure.stem == "__init__" else pure.stem


def handed_models(call: ast.Call, ctx: ModuleContext) -> list[ast.AST]:
    """The arguments of a call that hold models (`evaluate(model, loader)`, `run(model=net)`, either side of
    `evaluate(model if name != 'Exp1' else models[0], ...)`)."""
    args = [*call.args, *(k.value for k in call.keywords)]
    args = [side for a in args for side in ((a.body, a.orelse) if isinstance(a, ast.IfExp) else (a,))]
    return [a for a in args if isinstance(a, ast.Name | ast.Attribute) and not plainly_no_model(a, ctx)
            and model_like(a, ctx)]
